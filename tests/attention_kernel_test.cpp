// The attention kernels (compile_attention + run_attention on the emulator):
// the raw bits of every O element and LSE equal the policy reference's
// (reference(problem, blocks(schedule))), in randomized-completion and instant
// mode, and both are within docs/attention.md's tolerance of float64, on the
// shipped schedules and the shapes attention meets: one query or one key,
// ragged lengths, causal with Nq != Nk (rows that see nothing), GQA and MQA,
// batches, strided BHSD tensors, bf16 and f32 O, with and without the LSE.
#include <catch2/catch.hpp>

#include <string>

#include "cdna4/attention.hpp"
#include "cdna4/runtime.hpp"
#include "support/attention_case.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using cdna4::test::error_of;

namespace {

using Case = test::AttentionCase;
using Data = test::AttentionData;
using test::first_difference;

AttentionSchedule shipped(int dim) { return test::shipped_attention(dim); }
LaunchOptions mode(bool instant) { return test::completion_mode(instant); }

// One case on one schedule: both completion modes bit-exact and within tolerance.
void check_case(Device& dev, const AttentionSchedule& schedule, const Case& c, uint32_t seed = 1) {
  INFO(schedule.name << ": " << describe(c));
  test::check_kernel_runs(dev, schedule, Data(c, seed), {mode(false), mode(true)});
}

}  // namespace

TEST_CASE("attention kernel: D=128 non-causal whole blocks is bit-exact", "[attention-kernel]") {
  Device dev = Device::emulator();
  check_case(dev, shipped(128), Case{});
  // The overload that compiles for the problem's shape gives the same bits.
  const Data data(Case{.nq = 128, .nk = 192, .h = 2}, 5);
  const AttentionRun run = run_attention(dev, shipped(128), data.problem);
  CHECK(first_difference(data, run.out, reference(data.problem, blocks(shipped(128)))) == "");
  CHECK(run.compile.instructions > 0);
}

TEST_CASE("attention kernel: one query, one key, ragged lengths", "[attention-kernel]") {
  Device dev = Device::emulator();
  for (int d : {128, 64}) {
    const AttentionSchedule s = shipped(d);
    check_case(dev, s, Case{.nq = 1, .nk = 1, .d = d});
    check_case(dev, s, Case{.nq = 1, .nk = 300, .d = d});
    check_case(dev, s, Case{.nq = 300, .nk = 1, .d = d});
    check_case(dev, s, Case{.nq = 63, .nk = 65, .d = d});
    check_case(dev, s, Case{.nq = 65, .nk = 127, .d = d, .out = OutType::bf16});
    check_case(dev, s, Case{.nq = 127, .nk = 63, .d = d, .lse = false});
    check_case(dev, s, Case{.nq = 128, .nk = 256, .d = d});
  }
}

TEST_CASE("attention kernel: causal with Nq > Nk (rows that see nothing), Nq < Nk and Nq = Nk", "[attention-kernel]") {
  Device dev = Device::emulator();
  for (int d : {128, 64}) {
    const AttentionSchedule s = shipped(d);
    check_case(dev, s, Case{.nq = 300, .nk = 65, .d = d, .causal = true});
    check_case(dev, s, Case{.nq = 65, .nk = 300, .d = d, .causal = true});
    check_case(dev, s, Case{.nq = 127, .nk = 127, .d = d, .causal = true, .out = OutType::bf16});
    check_case(dev, s, Case{.nq = 1, .nk = 63, .d = d, .causal = true});
    check_case(dev, s, Case{.nq = 63, .nk = 1, .d = d, .causal = true, .lse = false});
    check_case(dev, s, Case{.nq = 256, .nk = 128, .d = d, .causal = true});
  }
}

TEST_CASE("attention kernel: GQA 8:1, MQA, batches, strided BHSD tensors", "[attention-kernel]") {
  Device dev = Device::emulator();
  for (int d : {128, 64}) {
    const AttentionSchedule s = shipped(d);
    check_case(dev, s, Case{.nq = 65, .nk = 63, .h = 16, .hkv = 2, .d = d});
    check_case(dev, s, Case{.b = 2, .nq = 63, .nk = 65, .h = 3, .hkv = 1, .d = d, .causal = true});
    check_case(dev, s, Case{.b = 3, .nq = 65, .nk = 127, .h = 2, .hkv = 2, .d = d, .out = OutType::bf16, .bhsd = true});
    check_case(dev, s, Case{.b = 2, .nq = 127, .nk = 65, .h = 4, .hkv = 2, .d = d, .causal = true, .lse = true,
                            .bhsd = true});
  }
}

TEST_CASE("attention plan: the baseline loop body and its waits", "[attention-kernel]") {
  // D = 128, 4 waves, 64 keys: 16 KiB blocks, 4 G2S parts of 4 KiB per operand.
  const AttentionSchedule planned = plan(shipped(128));
  CHECK(!planned.num_stages);
  REQUIRE(planned.ops.size() == 8 + 13);
  for (int i = 0; i < 8; ++i) {
    CHECK(planned.ops[i].kind == AttentionOpKind::g2s);
    CHECK(planned.ops[i].stage == 0);
    CHECK(planned.ops[i].operand == (i < 4 ? KvOperand::k : KvOperand::v));
    CHECK(planned.ops[i].part == i % 4);
  }
  const auto at = [&](int i) { return planned.ops[size_t(i)]; };
  // Block t's K waits behind V(t), K(t + 1), V(t + 1): 12 loads; its V behind the next block's 8.
  CHECK(at(8).kind == AttentionOpKind::barrier);
  CHECK(at(8).vmcnt == 12);
  CHECK(at(9).kind == AttentionOpKind::s2r);
  CHECK(at(10).kind == AttentionOpKind::dot_qk);
  CHECK(at(10).lgkmcnt == 0);
  CHECK(at(17).kind == AttentionOpKind::barrier);
  CHECK(at(17).vmcnt == 8);
  CHECK(at(18).operand == KvOperand::v);
  CHECK(at(19).kind == AttentionOpKind::dot_pv);
  CHECK(at(19).lgkmcnt == 0);
  CHECK(at(20).kind == AttentionOpKind::barrier);
  CHECK(!at(20).vmcnt);
  for (size_t i = 8; i < planned.ops.size(); ++i) CHECK(planned.ops[i].stage == 1);

  // One stage: K waits behind its own V loads only.
  AttentionSchedule one = shipped(64);
  one.num_stages = 1;
  const AttentionSchedule single = plan(one);
  // D = 64: 8 KiB blocks, 2 parts per operand.
  CHECK(single.ops[4].kind == AttentionOpKind::barrier);
  CHECK(single.ops[4].vmcnt == 2);
  CHECK(single.ops[13].vmcnt == 0);

  // Explicit ops without waits get the planner's; with waits they are kept.
  AttentionSchedule explicit_ops = shipped(128);
  explicit_ops.num_stages.reset();
  explicit_ops.ops = planned.ops;
  for (AttentionOp& op : explicit_ops.ops) op.vmcnt.reset(), op.lgkmcnt.reset();
  CHECK(plan(explicit_ops).ops == planned.ops);
  explicit_ops.ops[8].vmcnt = 0;
  CHECK(plan(explicit_ops).ops[8].vmcnt == 0);
  CHECK(!plan(explicit_ops).ops[17].vmcnt);
}

TEST_CASE("attention kernel: one stage and explicit ops run bit-exact", "[attention-kernel]") {
  Device dev = Device::emulator();
  AttentionSchedule one = shipped(64);
  one.name = "attn_fwd_d64_one_stage";
  one.num_stages = 1;
  check_case(dev, one, Case{.nq = 65, .nk = 127, .d = 64, .causal = true});
  // block_k 32, 8 waves, three LDS slots, per-kpack reads and dots.
  AttentionSchedule s;
  s.name = "attn_fwd_d128_w8_k32";
  s.dim = 128, s.waves = 8, s.block_q = 128, s.block_k = 32, s.lds_buffers = 3, s.num_stages = 2;
  check_case(dev, s, Case{.b = 2, .nq = 130, .nk = 100, .h = 2, .hkv = 1, .d = 128, .causal = true, .bhsd = true});
  check_case(dev, s, Case{.nq = 33, .nk = 257, .d = 128, .out = OutType::bf16});
}

TEST_CASE("attention kernel: compile statistics and the compile cache", "[attention-kernel]") {
  clear_compile_cache();
  AttentionShape shape;
  shape.seqlen_q = 256, shape.seqlen_k = 512, shape.heads = 2, shape.heads_kv = 1, shape.dim = 128;
  const AttentionKernel k = compile_attention(shipped(128), shape);
  CHECK(k.grid.x == 4);
  CHECK(k.grid.y == 2);
  CHECK(k.grid.z == 1);
  CHECK(k.block.x == 256);
  CHECK(k.stats.lds_bytes == 65536);  // two K and two V slots of 64 x 128 bf16
  CHECK(k.stats.loop_instructions > 0);
  CHECK(k.stats.loop_iterations == 1);
  // Per block: 4 key tiles x 4 kpacks (dot_qk) + 8 d tiles x 4 key tiles (dot_pv); prologue, loop, epilogue.
  CHECK(k.stats.mfma == 2 * (16 + 32));
  CHECK(k.stats.vgprs <= 256);
  CHECK(k.stats.waves_per_simd >= 1);
  CHECK(!k.stats.cached);
  const AttentionKernel again = compile_attention(shipped(128), shape);
  CHECK(again.stats.cached);
  CHECK(again.kernel.hsaco() == k.kernel.hsaco());
  CompileOptions text;  // the text path gives the bytes the streamed instructions give
  text.text_assembly = true;
  text.use_cache = false;
  CHECK(compile_attention(shipped(128), shape, text).kernel.hsaco() == k.kernel.hsaco());
  AttentionShape other = shape;
  other.scale = 0.5f;
  CHECK(!compile_attention(shipped(128), other).stats.cached);
  CHECK(attention_flops(shape) == 4.0 * 2 * 256 * 512 * 128);
  shape.causal = true;
  CHECK(attention_flops(shape) == 2.0 * 2 * 256 * 512 * 128);
}

TEST_CASE("attention kernel: schedules and problems it cannot take are refused in words", "[attention-kernel]") {
  AttentionShape shape;
  shape.seqlen_q = 64, shape.seqlen_k = 64, shape.heads = 1, shape.heads_kv = 1, shape.dim = 128;
  const auto refused = [&](auto change) {
    AttentionSchedule s = shipped(128);
    change(s);
    return error_of([&] { compile_attention(s, shape); });
  };
  CHECK_THAT(refused([](AttentionSchedule& s) { s.dim = 96; }), Catch::Contains("attn_fwd_d128: dim: expected 64 or 128, got 96"));
  CHECK_THAT(refused([](AttentionSchedule& s) { s.waves = 2; }), Catch::Contains("attn_fwd_d128: waves: expected 4 or 8, got 2"));
  CHECK_THAT(refused([](AttentionSchedule& s) { s.block_q = 128; }), Catch::Contains("block_q: expected 16 * waves = 64 (each wave owns 16 query rows), got 128"));
  CHECK_THAT(refused([](AttentionSchedule& s) { s.block_k = 48; }), Catch::Contains("block_k: expected 32, 64 or 128, got 48"));
  CHECK_THAT(refused([](AttentionSchedule& s) { s.dim = 64, s.waves = 8, s.block_q = 128, s.block_k = 32; }),
             Catch::Contains("must split into whole G2S parts of waves * 1024 = 8192 bytes"));
  CHECK_THAT(refused([](AttentionSchedule& s) { s.block_k = 128, s.lds_buffers = 3; }), Catch::Contains("LDS"));
  CHECK_THAT(refused([](AttentionSchedule& s) { s.block_k = 128; }), Catch::Contains("VGPRs"));
  CHECK_THAT(refused([](AttentionSchedule& s) { s.num_stages = 3; }), Catch::Contains("num_stages: expected 1 or 2, got 3"));
  CHECK_THAT(refused([](AttentionSchedule& s) {
               s.ops = plan(s).ops;
               s.num_stages.reset();
               s.ops[0].part = 4;
             }),
             Catch::Contains("ops[0].part: expected an integer in 0..3, got 4"));
  CHECK_THAT(refused([](AttentionSchedule& s) {
               s.ops = plan(s).ops;
               s.num_stages.reset();
               s.ops[10].kpack = 4;
             }),
             Catch::Contains("ops[10].kpack: expected an integer in 0..3, got 4"));
  CHECK_THAT(refused([](AttentionSchedule& s) {
               s.ops = plan(s).ops;
               s.num_stages.reset();
               s.ops[11].order = s.ops[10].order;
             }),
             Catch::Contains("used twice"));
  CHECK_THAT(error_of([&] {
               AttentionShape d64 = shape;
               d64.dim = 64;
               compile_attention(shipped(128), d64);
             }),
             Catch::Contains("D = 128, the shape has D = 64"));
  CHECK_THAT(error_of([&] {
               AttentionShape gqa = shape;
               gqa.heads = 3, gqa.heads_kv = 2;
               compile_attention(shipped(128), gqa);
             }),
             Catch::Contains("H must be a multiple of Hkv"));

  // run_attention: the kernel's shape, strides it can address.
  Device dev = Device::emulator();
  const AttentionKernel kernel = compile_attention(shipped(128), shape);
  Case c;
  c.lse = false;
  Data other(c, 3);
  other.problem.shape.lse = false;
  CHECK_THAT(error_of([&] { run_attention(dev, kernel, other.problem); }), Catch::Contains("another shape"));
  Data odd(Case{.nq = 64, .nk = 64, .lse = false, .bhsd = true}, 3);
  odd.problem.shape = shape;
  odd.problem.k_strides->seq = 132;  // 264 bytes: rows not on 16 bytes
  CHECK_THAT(error_of([&] { run_attention(dev, kernel, odd.problem); }), Catch::Contains("multiples of 8 elements"));
}

TEST_CASE("attention kernel: three stages, and workgroups with fewer blocks than the prologue", "[attention-kernel]") {
  // K loads at stage 0, V loads at stage 1, the compute at stage 2: causal query
  // blocks near the top see one block only (n = 1 < depth - 1), which takes
  // its own exact stream; the waits are the planner's.
  AttentionSchedule s = shipped(64);
  s.name = "attn_fwd_d64_three_stages";
  s.lds_buffers = 3;
  s.ops = plan(s).ops;
  s.num_stages.reset();
  for (AttentionOp& op : s.ops) {
    op.vmcnt.reset(), op.lgkmcnt.reset();
    if (op.kind != AttentionOpKind::g2s) op.stage = 2;
    else if (op.operand == KvOperand::v) op.stage = 1;
  }
  Device dev = Device::emulator();
  check_case(dev, s, Case{.nq = 300, .nk = 300, .d = 64, .causal = true});
  check_case(dev, s, Case{.b = 2, .nq = 65, .nk = 127, .h = 2, .hkv = 1, .d = 64, .out = OutType::bf16});
}

TEST_CASE("attention kernel: mutants of the planned schedule race on the emulator", "[attention-kernel]") {
  // Compiled without verification (CompileOptions::verify = false runs a
  // refused schedule), each mutant lets a wave read LDS or registers before
  // they are written, or refill a slot another wave still reads.
  Device dev = Device::emulator();
  const AttentionSchedule planned = plan(shipped(64));  // 2 G2S parts per operand: ops 0-3 load, 4 is K's barrier
  REQUIRE(planned.ops[4].kind == AttentionOpKind::barrier);
  REQUIRE(planned.ops[4].vmcnt == 6);
  REQUIRE(planned.ops[6].kind == AttentionOpKind::dot_qk);
  const Data data(Case{.nq = 128, .nk = 512, .d = 64, .lse = false}, 11);
  CompileOptions unverified;
  unverified.verify = false;
  const auto races = [&](const char* name, auto change) {
    AttentionSchedule s = planned;
    s.name = name;
    change(s);
    INFO(name);
    CHECK_THROWS_AS(run_attention(dev, s, data.problem, unverified, mode(false)), RaceError);
    // Verified (the default), the same mutant never reaches the emulator.
    CHECK_THROWS_WITH(compile_attention(s, data.problem.shape), Catch::Contains("rejected"));
    CHECK_FALSE(verify(s).accepted());
  };
  races("no_trailing_barrier", [](AttentionSchedule& s) {
    REQUIRE(s.ops.back().kind == AttentionOpKind::barrier);
    s.ops.pop_back();
  });
  races("no_k_barrier", [](AttentionSchedule& s) { s.ops[4].kind = AttentionOpKind::wait; });
  races("k_wait_too_short", [](AttentionSchedule& s) { s.ops[4].vmcnt = 8; });
  races("dot_qk_without_lgkmcnt", [](AttentionSchedule& s) { s.ops[6].lgkmcnt.reset(); });
}
