// Adversarial attention kernel tests: shapes at the edges of the blocking
// (one query or key under causal, lengths that are multiples of nothing, many
// KV loop trips, every causal block count), extreme scales and special
// values, strides that repeat, interleave and leave gaps, GQA / MQA extremes,
// schedules of every geometry the lowering takes, several random completion
// seeds and the timed mode; each run bit for bit against the policy reference
// (and within tolerance of float64 where its premise holds).
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "cdna4/attention.hpp"
#include "cdna4/runtime.hpp"
#include "support/attention_case.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using test::AttentionCase;
using test::AttentionData;
using test::completion_mode;
using test::shipped_attention;

namespace {

const std::vector<LaunchOptions> kBothModes = {completion_mode(false), completion_mode(true)};

void check(Device& dev, const AttentionSchedule& s, const AttentionCase& c, uint32_t seed = 1,
           const std::vector<LaunchOptions>& modes = kBothModes) {
  INFO(s.name << ": " << describe(c));
  test::check_kernel_runs(dev, s, AttentionData(c, seed), modes);
}

// A schedule of the given geometry, planned from num_stages.
AttentionSchedule geometry(int dim, int waves, int block_k, int lds_buffers, int stages) {
  AttentionSchedule s;
  s.name = fmt::format("attn_review_d{}_w{}_k{}_b{}_s{}", dim, waves, block_k, lds_buffers, stages);
  s.dim = dim, s.waves = waves, s.block_q = 16 * waves, s.block_k = block_k, s.lds_buffers = lds_buffers;
  s.num_stages = stages;
  return s;
}

void set_bf16(std::vector<uint8_t>& bytes, int64_t element, float value) {
  const uint16_t bits = float_to_bf16(value);
  std::memcpy(&bytes[size_t(element) * 2], &bits, 2);
}

}  // namespace

TEST_CASE("attention review: one query or one key under causal, lengths that are multiples of nothing",
          "[attention-review]") {
  Device dev = Device::emulator();
  for (int d : {64, 128}) {
    const AttentionSchedule s = shipped_attention(d);
    check(dev, s, {.nq = 1, .nk = 2048, .d = d, .causal = true});          // 32 blocks, the whole loop
    check(dev, s, {.nq = 300, .nk = 1, .d = d, .causal = true});           // only the last row sees a key
    check(dev, s, {.nq = 17, .nk = 1000, .d = d, .causal = true, .out = OutType::bf16});
    check(dev, s, {.nq = 129, .nk = 17, .d = d, .causal = true});
    check(dev, s, {.nq = 1000, .nk = 129, .d = d, .causal = true, .lse = false});
  }
}

TEST_CASE("attention review: causal block counts at every query block, many loop trips", "[attention-review]") {
  Device dev = Device::emulator();
  // Nq = Nk = 300: query blocks at q0 = 0, 64, .., 256 visit 1 .. 5 blocks, the last query block partial.
  check(dev, shipped_attention(64), {.nq = 300, .nk = 300, .d = 64, .causal = true, .out = OutType::bf16});
  // Nq < Nk: every query block visits many blocks (up to 32), the diagonal ragged.
  check(dev, shipped_attention(64), {.nq = 200, .nk = 2047, .d = 64, .causal = true});
  check(dev, shipped_attention(128), {.nq = 63, .nk = 1025, .d = 128, .causal = true});
  // Nq > Nk: the first query blocks visit none (O = 0, LSE = -inf), then 1, 2, ...
  check(dev, shipped_attention(128), {.nq = 321, .nk = 127, .d = 128, .causal = true});
}

TEST_CASE("attention review: GQA and MQA extremes, batches", "[attention-review]") {
  Device dev = Device::emulator();
  check(dev, shipped_attention(64), {.b = 1, .nq = 17, .nk = 65, .h = 64, .hkv = 1, .d = 64, .causal = true});
  check(dev, shipped_attention(64), {.b = 3, .nq = 5, .nk = 33, .h = 12, .hkv = 4, .d = 64, .out = OutType::bf16});
  check(dev, shipped_attention(128), {.b = 2, .nq = 9, .nk = 40, .h = 14, .hkv = 2, .d = 128, .causal = true});
  check(dev, shipped_attention(128), {.b = 5, .nq = 3, .nk = 3, .h = 1, .hkv = 1, .d = 128, .bhsd = true});
  check(dev, shipped_attention(64), {.b = 2, .nq = 2, .nk = 5, .h = 100, .hkv = 4, .d = 64, .causal = true});
  check(dev, shipped_attention(64), {.b = 70, .nq = 1, .nk = 2, .h = 3, .hkv = 3, .d = 64, .out = OutType::bf16});
  check(dev, shipped_attention(64), {.nq = 4100, .nk = 1, .h = 1, .hkv = 1, .d = 64, .causal = true, .lse = true});
}

TEST_CASE("attention review: every geometry the lowering takes", "[attention-review]") {
  Device dev = Device::emulator();
  const AttentionCase ragged_causal{.b = 2, .nq = 150, .nk = 259, .h = 2, .hkv = 1, .d = 64, .causal = true};
  const AttentionCase ragged{.nq = 77, .nk = 300, .d = 64, .out = OutType::bf16};
  for (int waves : {4, 8})
    for (int block_k : {32, 64, 128})
      for (int stages : {1, 2}) {
        const int lds = stages == 1 ? 1 : 3;
        if (block_k * 64 * 2 % (1024 * waves) != 0) continue;
        const AttentionSchedule s = geometry(64, waves, block_k, lds, stages);
        check(dev, s, ragged_causal);
        check(dev, s, ragged);
      }
  check(dev, geometry(64, 4, 128, 4, 2), ragged_causal);
  check(dev, geometry(64, 4, 64, 2, 1), ragged_causal);
  check(dev, geometry(64, 8, 128, 4, 1), ragged);
  for (int waves : {4, 8}) {
    AttentionCase c = ragged_causal;
    c.d = 128;
    check(dev, geometry(128, waves, 32, 2, 2), c);
    check(dev, geometry(128, waves, 64, 1, 1), c);
  }
}

TEST_CASE("attention review: extreme scales", "[attention-review]") {
  Device dev = Device::emulator();
  const float denormal = std::numeric_limits<float>::denorm_min() * 1000;
  for (float scale : {1e-6f, 1e3f, 1e30f, std::numeric_limits<float>::max(), denormal, 1e-38f}) {
    for (bool causal : {false, true}) {
      const AttentionCase c{.nq = 70, .nk = 130, .d = 64, .causal = causal};
      AttentionData data(c, 3);
      data.problem.shape.scale = scale;
      INFO("scale " << scale << " " << describe(c));
      // float64 agrees within the tolerance as long as the scores stay finite.
      test::check_kernel_runs(dev, shipped_attention(64), data, kBothModes, scale < 1e30f);
    }
  }
}

TEST_CASE("attention review: special values in Q, K and V", "[attention-review]") {
  Device dev = Device::emulator();
  const AttentionCase c{.b = 1, .nq = 40, .nk = 100, .h = 2, .hkv = 1, .d = 64, .causal = true};
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const auto run = [&](const char* what, auto change, bool against_f64) {
    for (OutType out : {OutType::f32, OutType::bf16}) {
      AttentionData data(c, 9);
      data.problem.shape.out = out;
      change(data);
      INFO(what << ", O " << to_string(out));
      test::check_kernel_runs(dev, shipped_attention(64), data, kBothModes, against_f64);
    }
  };
  const int64_t row_q = 2 * 64, row_k = 64;  // BSHD: a query row holds H = 2 heads, a key row one
  run("all-zero Q: every score 0, uniform softmax",
      [](AttentionData& d) { std::fill(d.q.begin(), d.q.end(), 0); }, true);
  run("all-equal K rows", [&](AttentionData& d) {
    for (int64_t j = 1; j < 100; ++j) std::memcpy(&d.k[size_t(j * row_k) * 2], &d.k[0], size_t(row_k) * 2);
  }, true);
  run("huge Q and K: scores overflow to +-inf", [&](AttentionData& d) {
    for (int64_t e = 0; e < int64_t(d.q.size() / 2); ++e) set_bf16(d.q, e, e % 3 ? 1e30f : -1e30f);
    for (int64_t e = 0; e < int64_t(d.k.size() / 2); ++e) set_bf16(d.k, e, e % 5 ? 1e30f : -3e30f);
  }, false);
  run("+inf and -inf in K", [&](AttentionData& d) {
    set_bf16(d.k, 5 * row_k + 3, inf);
    set_bf16(d.k, 70 * row_k + 0, -inf);
  }, false);
  run("NaN in Q (a whole row's scores NaN)", [&](AttentionData& d) { set_bf16(d.q, 39 * row_q + 64 + 7, nan); }, false);
  run("NaN in K (one key's scores NaN)", [&](AttentionData& d) { set_bf16(d.k, 64 * row_k + 1, nan); }, false);
  run("inf in V of a visible key and of a masked one", [&](AttentionData& d) {
    set_bf16(d.v, 3 * row_k + 9, inf);
    set_bf16(d.v, 99 * row_k + 2, -inf);
  }, false);
  run("NaN in V", [&](AttentionData& d) { set_bf16(d.v, 80 * row_k + 63, nan); }, false);
  run("signaling-NaN bits in Q, K and V", [&](AttentionData& d) {
    const uint16_t snan = 0x7f81, negative_snan = 0xff85;
    std::memcpy(&d.q[size_t(7 * row_q + 3) * 2], &snan, 2);
    std::memcpy(&d.k[size_t(50 * row_k + 60) * 2], &negative_snan, 2);
    std::memcpy(&d.v[size_t(20 * row_k + 1) * 2], &snan, 2);
  }, false);
  run("Q = 0 and V = -0: every O a zero", [&](AttentionData& d) {
    std::fill(d.q.begin(), d.q.end(), 0);
    for (int64_t e = 0; e < int64_t(d.v.size() / 2); ++e) set_bf16(d.v, e, -0.0f);
  }, true);
  run("denormal V: O and its bf16 rounding in the denormal range", [&](AttentionData& d) {
    for (int64_t e = 0; e < int64_t(d.v.size() / 2); ++e) {
      const uint16_t bits = uint16_t((d.v[2 * e] | d.v[2 * e + 1] << 8) & 0x807f);  // exponent 0: denormal or zero
      std::memcpy(&d.v[size_t(e) * 2], &bits, 2);
    }
  }, true);  // a bf16 O rounds by up to 2^-134 there: the tolerance's denormal floor
  run("V near the smallest normal, Q and K tiny: denormal scores", [&](AttentionData& d) {
    for (int64_t e = 0; e < int64_t(d.v.size() / 2); ++e) set_bf16(d.v, e, (e % 7 - 3) * 1.5e-38f);
    for (int64_t e = 0; e < int64_t(d.q.size() / 2); ++e) set_bf16(d.q, e, (e % 5 - 2) * 1e-20f);
    for (int64_t e = 0; e < int64_t(d.k.size() / 2); ++e) set_bf16(d.k, e, (e % 3 - 1) * 1e-20f);
  }, true);
  run("one dominant key: p = 0 everywhere but the max", [&](AttentionData& d) {
    for (int64_t e = 0; e < int64_t(d.q.size() / 2); ++e) set_bf16(d.q, e, 1.0f);
    for (int64_t e = 0; e < row_k; ++e) set_bf16(d.k, 61 * row_k + e, 64.0f);
  }, true);
}

TEST_CASE("attention review: strides that repeat, interleave and leave gaps", "[attention-review]") {
  Device dev = Device::emulator();
  const AttentionSchedule s = shipped_attention(64);
  const auto run = [&](const char* what, const AttentionCase& c, auto strides) {
    AttentionData data(c, 21);
    strides(data.problem);
    const AttentionShape& sh = data.problem.shape;
    data.q = test::random_bf16(test::tensor_elements(data.problem.strides_q(), sh.batch, sh.seqlen_q, sh.heads, 64), 4);
    data.k = test::random_bf16(test::tensor_elements(data.problem.strides_k(), sh.batch, sh.seqlen_k, sh.heads_kv, 64), 5);
    data.v = test::random_bf16(test::tensor_elements(data.problem.strides_v(), sh.batch, sh.seqlen_k, sh.heads_kv, 64), 6);
    data.borrow();
    INFO(what << ": " << describe(c));
    test::check_kernel_runs(dev, s, data, kBothModes);
  };
  const AttentionCase c{.b = 3, .nq = 70, .nk = 90, .h = 4, .hkv = 2, .d = 64, .causal = true};
  run("batch stride 0: every batch reads the same Q, K and V", c, [](AttentionProblem& p) {
    p.q_strides = TensorStrides{0, 4 * 64, 64};
    p.k_strides = p.v_strides = TensorStrides{0, 2 * 64, 64};
  });
  run("K and V head stride 0 (both KV heads the same), rows 8 elements apart (overlapping)", c,
      [](AttentionProblem& p) {
        p.k_strides = TensorStrides{200 * 8, 8, 0};
        p.v_strides = TensorStrides{96 * 8, 8, 0};
      });
  run("Q BHSD, K BSHD, V [S][B][H][D]", c, [](AttentionProblem& p) {
    p.q_strides = TensorStrides::bhsd(70, 4, 64);
    p.v_strides = TensorStrides{2 * 64, 3 * 2 * 64, 64};
  });
  run("O interleaved [S][H][B][D], f32", c, [](AttentionProblem& p) {
    p.o_strides = TensorStrides{64, 4 * 3 * 64, 3 * 64};
  });
  AttentionCase bf16 = c;
  bf16.out = OutType::bf16;
  run("O bf16 with odd gaps: seq stride H*D + 3, head stride D + 1", bf16, [](AttentionProblem& p) {
    p.o_strides = TensorStrides{70 * (4 * 64 + 3), 4 * 64 + 3, 65};
  });
  run("O f32 with odd gaps, rows of one head 1 apart from another batch's", c, [](AttentionProblem& p) {
    p.o_strides = TensorStrides{65, 3 * 4 * 65 + 1, 3 * 65};
  });
  AttentionCase one_query = c;
  one_query.nq = 1;
  run("Q seq stride 0: every query row the same", c, [](AttentionProblem& p) {
    p.q_strides = TensorStrides{4 * 64, 0, 64};
  });
  run("Nq = 1, O and Q seq stride 0", one_query, [](AttentionProblem& p) {
    p.q_strides = TensorStrides{4 * 64, 0, 64};
    p.o_strides = TensorStrides{4 * 64, 0, 64};
  });
}

TEST_CASE("attention review: random completion under several seeds, and the timed mode", "[attention-review]") {
  Device dev = Device::emulator();
  std::vector<LaunchOptions> modes;
  for (uint64_t seed : {1, 2, 3, 4, 5, 1234567}) modes.push_back(completion_mode(false, seed));
  LaunchOptions timed;
  timed.timed = true;
  modes.push_back(timed);
  for (const AttentionSchedule& s : {shipped_attention(64), geometry(64, 8, 64, 3, 2), geometry(64, 4, 128, 2, 2),
                                     geometry(64, 8, 64, 1, 1)}) {
    INFO(s.name);
    test::check_kernel_runs(dev, s, AttentionData({.b = 2, .nq = 130, .nk = 333, .h = 2, .hkv = 1, .d = 64,
                                                   .causal = true}, 8), modes);
  }
  test::check_kernel_runs(dev, shipped_attention(128),
                          AttentionData({.nq = 65, .nk = 257, .d = 128, .out = OutType::bf16}, 8), modes);
}

TEST_CASE("attention review: long random memory delays", "[attention-review]") {
  // Loads that complete up to 2000 issue slots late: a missing wait or barrier
  // anywhere in the pipeline has room to show as a race or other bits.
  EmulatorConfig config;
  config.max_delay = 2000;
  Device dev = Device::emulator(config);
  std::vector<LaunchOptions> modes;
  for (uint64_t seed : {11, 12, 13}) modes.push_back(completion_mode(false, seed));
  for (const AttentionSchedule& s : {shipped_attention(64), geometry(64, 8, 64, 3, 2), geometry(64, 4, 32, 1, 1)}) {
    INFO(s.name);
    test::check_kernel_runs(dev, s, AttentionData({.nq = 130, .nk = 333, .h = 2, .hkv = 1, .d = 64, .causal = true}, 8),
                            modes);
  }
  test::check_kernel_runs(dev, shipped_attention(128), AttentionData({.nq = 70, .nk = 200, .d = 128}, 8), modes);
}

TEST_CASE("attention review: O strides are refused only where two elements meet", "[attention-review]") {
  AttentionData data({.b = 3, .nq = 70, .nk = 90, .h = 4, .hkv = 2, .d = 64}, 1);
  const auto refusal = [&](TensorStrides o) {
    data.problem.o_strides = o;
    return test::error_of([&] { validate(data.problem); });
  };
  // Heads D + 1 apart end at 3 * 65 + 64 = 259 elements: the next row may start there, not before.
  CHECK(refusal({70 * 259, 259, 65}) == "no error");
  CHECK_THAT(refusal({70 * 259, 258, 65}), Catch::Contains("make its elements overlap"));
  CHECK_THAT(refusal({70 * 262, 259, 66}), Catch::Contains("make its elements overlap"));
  CHECK(refusal({69 * 259 + 259, 259, 65}) == "no error");
  CHECK_THAT(refusal({69 * 259 + 258, 259, 65}), Catch::Contains("make its elements overlap"));
}

namespace {

using K = AttentionOpKind;

AttentionOp op(K kind, int stage, std::optional<int> kpack = {}, KvOperand operand = KvOperand::k, int part = 0) {
  AttentionOp o;
  o.kind = kind, o.stage = stage, o.kpack = kpack, o.operand = operand, o.part = part;
  return o;
}

// D = 64, 4 waves, 64-key blocks (the shipped attn_fwd_d64 geometry: 2 G2S
// parts per operand, 2 QK kpacks, 4 PV kpacks), ops in the order given, waits
// from the planner.
AttentionSchedule explicit_d64(const std::string& name, int lds_buffers, std::vector<AttentionOp> ops) {
  AttentionSchedule s = shipped_attention(64);
  s.name = name;
  s.num_stages.reset();
  s.lds_buffers = lds_buffers;
  for (size_t i = 0; i < ops.size(); ++i) ops[i].order = int(i);
  s.ops = std::move(ops);
  return plan(s);
}

std::vector<AttentionOp> g2s_ops(int stage = 0) {
  std::vector<AttentionOp> out;
  for (KvOperand o : {KvOperand::k, KvOperand::v})
    for (int p = 0; p < 2; ++p) out.push_back(op(K::g2s, stage, {}, o, p));
  return out;
}

std::vector<AttentionOp> concat(std::initializer_list<std::vector<AttentionOp>> parts) {
  std::vector<AttentionOp> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// The baseline's stage-1 body with the softmax ops in `softmax` order.
std::vector<AttentionOp> baseline_with(std::vector<AttentionOp> softmax) {
  return concat({g2s_ops(), {op(K::barrier, 1), op(K::s2r, 1)}, {op(K::dot_qk, 1)}, softmax,
                 {op(K::barrier, 1), op(K::s2r, 1, {}, KvOperand::v), op(K::dot_pv, 1), op(K::barrier, 1)}});
}

const std::vector<AttentionOp> kSoftmax = {op(K::mask, 1),   op(K::row_max, 1),   op(K::exp, 1),
                                           op(K::row_sum, 1), op(K::rescale_o, 1), op(K::convert_p, 1)};

const AttentionCase kExplicitCase{.b = 2, .nq = 100, .nk = 333, .h = 2, .hkv = 1, .d = 64, .causal = true};

void accepted_and_exact(Device& dev, const AttentionSchedule& s) {
  INFO(s.name);
  const VerifyReport report = verify(s);
  INFO(report.summary());
  REQUIRE(report.accepted());
  CHECK(parse_attention_schedule(to_json(s)) == s);  // as a file says it
  std::vector<LaunchOptions> modes = kBothModes;
  modes.push_back(completion_mode(false, 99));
  modes.emplace_back().timed = true;
  test::check_kernel_runs(dev, s, AttentionData(kExplicitCase, 31), modes);
  test::check_kernel_runs(dev, s, AttentionData({.nq = 64, .nk = 64, .d = 64, .out = OutType::bf16}, 32), modes);
  // Causal query blocks that visit 0, 1, 2, .. blocks (streams shorter than the pipeline).
  test::check_kernel_runs(dev, s, AttentionData({.nq = 321, .nk = 127, .d = 64, .causal = true}, 33), modes);
  test::check_kernel_runs(dev, s, AttentionData({.nq = 1, .nk = 1, .d = 64, .causal = true}, 34), modes);
}

}  // namespace

TEST_CASE("attention review: valid reorderings are accepted and stay bit-exact", "[attention-review]") {
  EmulatorConfig long_delays;  // loads up to 2000 issue slots late in the randomized runs
  long_delays.max_delay = 2000;
  Device dev = Device::emulator(long_delays);
  // V's S2R right after K's, before the softmax.
  accepted_and_exact(dev, explicit_d64("s2r_v_early", 2, concat({g2s_ops(), {op(K::barrier, 1), op(K::s2r, 1)},
      {op(K::barrier, 1), op(K::s2r, 1, {}, KvOperand::v), op(K::dot_qk, 1)}, kSoftmax,
      {op(K::dot_pv, 1), op(K::barrier, 1)}})));
  // rescale_o right after row_max, before exp and row_sum; row_sum after convert_p.
  accepted_and_exact(dev, explicit_d64("rescale_first_row_sum_last", 2, baseline_with(
      {op(K::mask, 1), op(K::row_max, 1), op(K::rescale_o, 1), op(K::exp, 1), op(K::convert_p, 1), op(K::row_sum, 1)})));
  // convert_p, s2r v and dot_pv per kpack, interleaved; s2r k and dot_qk per kpack.
  {
    std::vector<AttentionOp> ops = concat({g2s_ops(), {op(K::barrier, 1)}});
    for (int c = 0; c < 2; ++c) ops.push_back(op(K::s2r, 1, c));
    for (int c = 0; c < 2; ++c) ops.push_back(op(K::dot_qk, 1, c));
    for (K k : {K::mask, K::row_max, K::exp, K::row_sum, K::rescale_o}) ops.push_back(op(k, 1));
    ops.push_back(op(K::barrier, 1));
    for (int c = 0; c < 4; ++c) {
      ops.push_back(op(K::convert_p, 1, c));
      ops.push_back(op(K::s2r, 1, c, KvOperand::v));
      ops.push_back(op(K::dot_pv, 1, c));
    }
    ops.push_back(op(K::barrier, 1));
    accepted_and_exact(dev, explicit_d64("per_kpack_interleaved", 2, ops));
  }
  // s2r k kpack 1 issued after dot_qk kpack 0 (its reads overlap the first MFMAs).
  accepted_and_exact(dev, explicit_d64("qk_kpacks_interleaved", 2, concat({g2s_ops(), {op(K::barrier, 1),
      op(K::s2r, 1, 0), op(K::dot_qk, 1, 0), op(K::s2r, 1, 1), op(K::dot_qk, 1, 1)}, kSoftmax,
      {op(K::barrier, 1), op(K::s2r, 1, {}, KvOperand::v), op(K::dot_pv, 1), op(K::barrier, 1)}})));
  // PV of block t - 1 (stage 2) before QK and softmax of block t (stage 1), three slots.
  accepted_and_exact(dev, explicit_d64("pv_one_block_behind", 3, concat({g2s_ops(),
      {op(K::barrier, 2), op(K::s2r, 2, {}, KvOperand::v), op(K::dot_pv, 2)},
      {op(K::barrier, 1), op(K::s2r, 1), op(K::dot_qk, 1)}, kSoftmax, {op(K::barrier, 1)}})));
  // One barrier publishes K and V; rescale_o right before dot_pv; row_sum after dot_pv.
  accepted_and_exact(dev, explicit_d64("one_barrier_late_rescale_and_sum", 2, concat({g2s_ops(), {op(K::barrier, 1),
      op(K::s2r, 1), op(K::s2r, 1, {}, KvOperand::v), op(K::dot_qk, 1), op(K::mask, 1), op(K::row_max, 1),
      op(K::exp, 1), op(K::convert_p, 1), op(K::rescale_o, 1), op(K::dot_pv, 1), op(K::row_sum, 1),
      op(K::barrier, 1)}})));
  // V's loads a stage later than K's, in the iteration that reads them.
  accepted_and_exact(dev, explicit_d64("v_loads_in_the_reading_iteration", 2, concat({{op(K::g2s, 0, {}, KvOperand::k, 0),
      op(K::g2s, 0, {}, KvOperand::k, 1), op(K::g2s, 1, {}, KvOperand::v, 0), op(K::g2s, 1, {}, KvOperand::v, 1),
      op(K::barrier, 1), op(K::s2r, 1), op(K::dot_qk, 1)}, kSoftmax,
      {op(K::barrier, 1), op(K::s2r, 1, {}, KvOperand::v), op(K::dot_pv, 1), op(K::barrier, 1)}})));
  // K read into registers one iteration before its dot (the K registers held
  // across the loop edge), with priorities around the clusters.
  {
    std::vector<AttentionOp> ops = concat({g2s_ops(), {op(K::setprio, 2)}});
    ops.back().prio = 3;
    for (AttentionOp o : concat({{op(K::dot_qk, 2)}, kSoftmax})) {
      if (o.kind != K::dot_qk) o.stage = 2;
      ops.push_back(o);
    }
    ops.push_back(op(K::setprio, 2));
    ops.push_back(op(K::barrier, 2));
    ops.push_back(op(K::s2r, 2, {}, KvOperand::v));
    ops.push_back(op(K::dot_pv, 2));
    ops.push_back(op(K::barrier, 1));
    ops.push_back(op(K::s2r, 1));
    ops.push_back(op(K::barrier, 2));
    accepted_and_exact(dev, explicit_d64("k_registers_a_stage_ahead", 3, ops));
  }
  // K's second part a stage later than its first, loaded in the iteration that reads it.
  accepted_and_exact(dev, explicit_d64("k_part_1_a_stage_later", 2, concat({{op(K::g2s, 0, {}, KvOperand::k, 0),
      op(K::g2s, 0, {}, KvOperand::v, 0), op(K::g2s, 0, {}, KvOperand::v, 1), op(K::g2s, 1, {}, KvOperand::k, 1),
      op(K::barrier, 1), op(K::s2r, 1), op(K::dot_qk, 1)}, kSoftmax,
      {op(K::barrier, 1), op(K::s2r, 1, {}, KvOperand::v), op(K::dot_pv, 1), op(K::barrier, 1)}})));
  // The scores held across the loop edge: dot_qk of block t at stage 1, its
  // mask, softmax and PV at stage 2, before block t + 1's dot_qk.
  {
    std::vector<AttentionOp> ops = g2s_ops();
    for (AttentionOp o : kSoftmax) ops.push_back((o.stage = 2, o));
    for (AttentionOp o : {op(K::barrier, 2), op(K::s2r, 2, {}, KvOperand::v), op(K::dot_pv, 2), op(K::barrier, 1),
                          op(K::s2r, 1), op(K::dot_qk, 1), op(K::barrier, 1)})
      ops.push_back(o);
    accepted_and_exact(dev, explicit_d64("scores_across_the_loop_edge", 3, ops));
  }
  // Three slots: block t + 3 refills block t's slot two iterations after its last read,
  // past two barriers, so the trailing barrier is not needed.
  accepted_and_exact(dev, explicit_d64("three_slots_no_trailing_barrier", 3, concat({g2s_ops(),
      {op(K::barrier, 1), op(K::s2r, 1), op(K::dot_qk, 1)}, kSoftmax,
      {op(K::barrier, 1), op(K::s2r, 1, {}, KvOperand::v), op(K::dot_pv, 1)}})));
}

namespace {

// A wrong schedule: the verifier refuses it (naming `rule`) and so does
// compile_attention; compiled without verification it races on the emulator
// or gives other bits than the policy reference (`harm`: whether it must).
void refused(Device& dev, const AttentionSchedule& s, const std::string& rule, bool harm = true) {
  INFO(s.name);
  const VerifyReport report = verify(s);
  INFO(report.summary());
  CHECK_FALSE(report.accepted());
  CHECK_THAT(report.summary(), Catch::Contains(rule));
  CHECK_THAT(test::error_of([&] { compile_attention(s, AttentionData(kExplicitCase, 1).problem.shape); }),
             Catch::Contains("rejected"));
  if (!harm) return;
  CompileOptions unverified;
  unverified.verify = false;
  const AttentionData data(kExplicitCase, 41);
  bool harmed = false;
  try {
    const AttentionRun run = run_attention(dev, s, data.problem, unverified, completion_mode(false));
    harmed = test::first_difference(data, run.out, reference(data.problem, blocks(s))) != "";
  } catch (const RaceError&) {
    harmed = true;
  }
  CHECK(harmed);
}

}  // namespace

TEST_CASE("attention review: wrong schedules are refused, and they do harm", "[attention-review]") {
  Device dev = Device::emulator();
  refused(dev, explicit_d64("rescale_o_before_row_max", 2, baseline_with({op(K::mask, 1), op(K::rescale_o, 1),
      op(K::row_max, 1), op(K::exp, 1), op(K::row_sum, 1), op(K::convert_p, 1)})), "register-chain");
  refused(dev, explicit_d64("row_sum_before_exp", 2, baseline_with({op(K::mask, 1), op(K::row_max, 1),
      op(K::row_sum, 1), op(K::exp, 1), op(K::rescale_o, 1), op(K::convert_p, 1)})), "register-chain");
  refused(dev, explicit_d64("row_max_before_mask", 2, baseline_with({op(K::row_max, 1), op(K::mask, 1), op(K::exp, 1),
      op(K::row_sum, 1), op(K::rescale_o, 1), op(K::convert_p, 1)})), "register-chain");
  refused(dev, explicit_d64("convert_p_before_exp", 2, baseline_with({op(K::mask, 1), op(K::row_max, 1),
      op(K::convert_p, 1), op(K::exp, 1), op(K::row_sum, 1), op(K::rescale_o, 1)})), "register-chain");
  refused(dev, explicit_d64("dot_qk_kpacks_reversed", 2, concat({g2s_ops(), {op(K::barrier, 1), op(K::s2r, 1),
      op(K::dot_qk, 1, 1), op(K::dot_qk, 1, 0)}, kSoftmax, {op(K::barrier, 1), op(K::s2r, 1, {}, KvOperand::v),
      op(K::dot_pv, 1), op(K::barrier, 1)}})), "register-chain");
  {
    std::vector<AttentionOp> ops = concat({g2s_ops(), {op(K::barrier, 1), op(K::s2r, 1), op(K::dot_qk, 1)}, kSoftmax,
                                           {op(K::barrier, 1), op(K::s2r, 1, {}, KvOperand::v)}});
    for (int c : {1, 0, 2, 3}) ops.push_back(op(K::dot_pv, 1, c));
    ops.push_back(op(K::barrier, 1));
    refused(dev, explicit_d64("dot_pv_kpacks_out_of_order", 2, ops), "register-chain");
  }
  // PV one block behind, but after the next block's convert_p: P is overwritten first.
  refused(dev, explicit_d64("pv_behind_after_next_convert_p", 3, concat({g2s_ops(),
      {op(K::barrier, 1), op(K::s2r, 1), op(K::dot_qk, 1)}, kSoftmax,
      {op(K::barrier, 2), op(K::s2r, 2, {}, KvOperand::v), op(K::dot_pv, 2), op(K::barrier, 1)}})), "register-overwrite");
  // The softmax split from its scores: block t + 1's dot_qk overwrites S before block t's exp.
  refused(dev, explicit_d64("exp_a_stage_after_dot_qk", 3, concat({g2s_ops(),
      {op(K::barrier, 1), op(K::s2r, 1), op(K::dot_qk, 1), op(K::mask, 1), op(K::row_max, 1)},
      {op(K::exp, 2), op(K::row_sum, 2), op(K::rescale_o, 2), op(K::convert_p, 2), op(K::barrier, 2),
       op(K::s2r, 2, {}, KvOperand::v), op(K::dot_pv, 2), op(K::barrier, 2)}})), "register-overwrite");
  // The K (V) registers of block t + 1 read from LDS before block t's dot_qk (dot_pv) consumed them.
  {
    std::vector<AttentionOp> ops = g2s_ops();
    for (AttentionOp o : concat({{op(K::barrier, 1), op(K::s2r, 1)}, {op(K::dot_qk, 2)}, kSoftmax})) {
      if (o.kind != K::barrier && o.kind != K::s2r) o.stage = 2;
      ops.push_back(o);
    }
    for (AttentionOp o : {op(K::barrier, 2), op(K::s2r, 2, {}, KvOperand::v), op(K::dot_pv, 2), op(K::barrier, 2)})
      ops.push_back(o);
    refused(dev, explicit_d64("k_registers_overwritten_before_dot_qk", 3, ops), "register-overwrite");
  }
  {
    std::vector<AttentionOp> ops = concat({g2s_ops(), {op(K::barrier, 1), op(K::s2r, 1), op(K::dot_qk, 1)}, kSoftmax,
                                           {op(K::barrier, 1), op(K::s2r, 1, {}, KvOperand::v)}});
    for (AttentionOp o : {op(K::dot_pv, 2), op(K::barrier, 1)}) ops.push_back(o);
    refused(dev, explicit_d64("v_registers_overwritten_before_dot_pv", 3, ops), "register-");
  }
  // One slot with two stages: block t + 1's loads land in the slot block t reads.
  {
    AttentionSchedule one_slot = shipped_attention(64);
    one_slot.name = "one_slot_two_stages";
    one_slot.lds_buffers = 1;
    refused(dev, plan(one_slot), "race");
  }
  // Explicit waits too weak: dot_pv without its lgkmcnt, V's barrier without its vmcnt.
  {
    AttentionSchedule s = plan(shipped_attention(64));
    s.name = "dot_pv_without_lgkmcnt";
    REQUIRE(s.ops[15].kind == K::dot_pv);
    s.ops[15].lgkmcnt.reset();
    refused(dev, s, "dot-lgkmcnt");
    s = plan(shipped_attention(64));
    s.name = "v_barrier_without_vmcnt";
    REQUIRE(s.ops[13].kind == K::barrier);
    REQUIRE(s.ops[13].vmcnt);
    s.ops[13].vmcnt.reset();
    refused(dev, s, "raw-race");
  }
  // V's loads after the barrier that should publish them, in the same iteration.
  refused(dev, explicit_d64("v_loaded_after_its_barrier", 2, concat({{op(K::g2s, 0, {}, KvOperand::k, 0),
      op(K::g2s, 0, {}, KvOperand::k, 1), op(K::barrier, 0), op(K::s2r, 0), op(K::g2s, 0, {}, KvOperand::v, 0),
      op(K::g2s, 0, {}, KvOperand::v, 1), op(K::dot_qk, 0)}, {op(K::mask, 0), op(K::row_max, 0), op(K::exp, 0),
      op(K::row_sum, 0), op(K::rescale_o, 0), op(K::convert_p, 0)}, {op(K::s2r, 0, {}, KvOperand::v),
      op(K::dot_pv, 0), op(K::barrier, 0)}})), "raw-race");
}

namespace {

// One query row [1, 0, ..]; key 0 scores 4, the other keys 3, every V row
// 255/128 (float64's O is 255/128 exactly), and the scale makes the other
// keys' p = exp2(-c) = `p`: just above 0.5 + 2^-9, bf16 rounds every p up
// by almost 2^-8 relative (the bf16 unit roundoff, 8 significant bits).
AttentionData uniform_scores(int64_t nk, double p, OutType out) {
  AttentionData data({.nq = 1, .nk = nk, .d = 64, .out = out}, 1);
  std::fill(data.q.begin(), data.q.end(), 0);
  set_bf16(data.q, 0, 1.0f);
  for (int64_t j = 0; j < nk; ++j)
    for (int64_t d = 0; d < 64; ++d) {
      set_bf16(data.k, j * 64 + d, d == 0 ? (j == 0 ? 4.0f : 3.0f) : 0.0f);
      set_bf16(data.v, j * 64 + d, 255.0f / 128);
    }
  data.problem.shape.scale = float(-std::log2(p) / std::log2(std::exp(1.0)));
  return data;
}

}  // namespace

TEST_CASE("attention review: P rounded up at every key, long rows of equal p", "[attention-review]") {
  // Bit-exact against the policy reference and within the float64 tolerance
  // (the case below checks the tolerance's worst cases one by one).
  Device dev = Device::emulator();
  for (OutType out : {OutType::f32, OutType::bf16})
    test::check_kernel_runs(dev, shipped_attention(64), uniform_scores(4096, 0.5022, out), kBothModes);
  test::check_kernel_runs(dev, shipped_attention(64), uniform_scores(4096, 0.5019532, OutType::f32),
                          {completion_mode(true)});
}

TEST_CASE("attention review: docs/attention.md's float64 tolerance under adversarial rounding",
          "[attention-review]") {
  // Inputs that push each term of the bound to its worst case: bf16 has 8
  // significant bits, so P moves by up to 2^-8 relative per weight and a bf16 O
  // by 2^-8 more; the fp32 sums over Nk keys add about Nk * 2^-24 (relative);
  // bf16 denormals have a fixed spacing; the LSE's fp32 row sum grows with Nk.
  // The kernel is bit-exact with the policy reference and within the tolerance.
  Device dev = Device::emulator();
  {
    INFO("bf16 O: float64 has 255/128, the kernel (and the policy reference) 2.0: 2^-7 apart");
    test::check_kernel_runs(dev, shipped_attention(64), uniform_scores(4096, 0.5022, OutType::bf16),
                            {completion_mode(true)});
  }
  {
    INFO("f32 O: |O - O64| = 1.0025 * 2^-8 M (M = max|V| here), P's bf16 rounding plus the fp32 sums");
    test::check_kernel_runs(dev, shipped_attention(64), uniform_scores(4096, 0.5019532, OutType::f32),
                            {completion_mode(true)});
  }
  {
    INFO("bf16 O of denormal V: rounded to the bf16 denormal spacing 2^-133, above 2^-8 M");
    AttentionData data({.nq = 40, .nk = 100, .d = 64, .out = OutType::bf16}, 9);
    for (int64_t e = 0; e < int64_t(data.v.size() / 2); ++e) {
      const uint16_t bits = uint16_t((data.v[2 * e] | data.v[2 * e + 1] << 8) & 0x807f);
      std::memcpy(&data.v[size_t(e) * 2], &bits, 2);
    }
    test::check_kernel_runs(dev, shipped_attention(64), data, {completion_mode(true)});
  }
  INFO("LSE over 131072 keys of p = 0.9999: |LSE - LSE64| = 1.47 * 2^-18 (1 + |LSE64|), the fp32 row sum's error");
  AttentionData long_row = uniform_scores(131072, 0.9999, OutType::f32);
  long_row.problem.shape.lse = true;
  test::check_kernel_runs(dev, shipped_attention(64), long_row, {completion_mode(true)});
}

TEST_CASE("attention review: a long random row (512 KV blocks)", "[attention-review]") {
  Device dev = Device::emulator();
  test::check_kernel_runs(dev, shipped_attention(128),
                          AttentionData({.nq = 16, .nk = 32768, .d = 128, .out = OutType::bf16}, 5),
                          {completion_mode(true), completion_mode(false)});
}

namespace {

AttentionOp waited(AttentionOp o, std::optional<int> vmcnt, std::optional<int> lgkmcnt) {
  o.vmcnt = vmcnt, o.lgkmcnt = lgkmcnt;
  return o;
}

// V's second G2S part (keys 32..63 of D = 64's 64-key block) loads in the
// iteration that reads the block: V kpacks 0 and 1 (keys 0..31, part 0 only)
// are read and multiplied before it is waited for, kpacks 2 and 3 after.
AttentionSchedule late_v_part() {
  const KvOperand v = KvOperand::v;
  std::vector<AttentionOp> ops = {op(K::g2s, 0, {}, KvOperand::k, 0), op(K::g2s, 0, {}, KvOperand::k, 1),
                                  op(K::g2s, 0, {}, v, 0), op(K::g2s, 1, {}, v, 1),
                                  // K(t) and V(t) part 0 complete: 5 newer loads (V(t-1) part 1, this iteration's 4).
                                  waited(op(K::barrier, 1), 5, {}), op(K::s2r, 1),
                                  waited(op(K::dot_qk, 1), {}, 0)};
  ops.insert(ops.end(), kSoftmax.begin(), kSoftmax.end());
  const auto pv = [&](int c) { return waited(op(K::dot_pv, 1, c), {}, c % 2 ? 0 : 4); };
  for (AttentionOp o : {op(K::s2r, 1, 0, v), op(K::s2r, 1, 1, v), pv(0), pv(1), waited(op(K::barrier, 1), 0, {}),
                        op(K::s2r, 1, 2, v), op(K::s2r, 1, 3, v), pv(2), pv(3), op(K::barrier, 1)})
    ops.push_back(o);
  return explicit_d64("late_v_part", 2, ops);
}

}  // namespace

TEST_CASE("attention review: a V part loaded late, read only by the kpacks after its wait, is right",
          "[attention-review]") {
  // The schedule is right: compiled without verification, it is bit-exact and
  // race-free under several completion seeds.
  Device dev = Device::emulator();
  const AttentionSchedule s = late_v_part();
  CompileOptions unverified;
  unverified.verify = false;
  const AttentionData data(kExplicitCase, 51);
  const AttentionOutput want = reference(data.problem, blocks(s));
  std::vector<LaunchOptions> modes;
  for (uint64_t seed : {1, 2, 3, 4}) modes.push_back(completion_mode(false, seed));
  modes.emplace_back().timed = true;
  for (const LaunchOptions& mode : modes)
    CHECK(test::first_difference(data, run_attention(dev, s, data.problem, unverified, mode).out, want) == "");
}

TEST_CASE("attention review: the verifier accepts a V part loaded late, and refuses it read early",
          "[attention-review]") {
  const AttentionSchedule s = late_v_part();
  const VerifyReport report = verify(s);
  INFO(report.summary());
  CHECK(report.accepted());
  Device dev = Device::emulator();
  AttentionSchedule early = s;
  early.name = "late_v_part_read_before_its_wait";
  REQUIRE(early.ops[17].kind == K::barrier);
  REQUIRE(early.ops[17].vmcnt == 0);
  early.ops[17].vmcnt = 1;  // V part 1 of this block still in flight at kpacks 2 and 3
  refused(dev, early, "raw-race");
  AttentionSchedule moved = s;  // kpack 2 (part 1) read before the wait
  moved.name = "late_v_part_kpack_2_before_its_wait";
  for (AttentionOp& o : moved.ops) o.order *= 10;
  REQUIRE(moved.ops[18].kind == K::s2r);
  REQUIRE(moved.ops[18].kpack == 2);
  moved.ops[18].order = moved.ops[14].order + 5;
  refused(dev, moved, "raw-race");
}

TEST_CASE("attention review: a schedule built in code is refused where its file would be",
          "[attention-review]") {
  // A wait op without vmcnt or lgkmcnt: the file parse_attention_schedule reads
  // from to_json of it and compile_attention (plan's checks) refuse it in the
  // same words, from the one limits table.
  std::vector<AttentionOp> ops = baseline_with(kSoftmax);
  ops.insert(ops.begin() + 5, op(K::wait, 1));
  AttentionSchedule s = shipped_attention(64);
  s.name = "bare_wait";
  s.num_stages.reset();
  for (size_t i = 0; i < ops.size(); ++i) ops[i].order = int(i);
  s.ops = ops;
  const std::string file = test::error_of([&] { parse_attention_schedule(to_json(s)); });
  CHECK_THAT(file, Catch::Contains("a wait op needs vmcnt, lgkmcnt or both"));
  CHECK_THAT(test::error_of([&] { compile_attention(s, AttentionData(kExplicitCase, 1).problem.shape); }),
             Catch::Contains("ops[5]") && Catch::Contains("a wait op needs vmcnt, lgkmcnt or both"));
  CHECK_THAT(test::error_of([&] { plan(s); }),
             Catch::Contains("ops[5]") && Catch::Contains("a wait op needs vmcnt, lgkmcnt or both"));
  const VerifyReport report = verify(s);
  CHECK_FALSE(report.accepted());
  CHECK_THAT(report.summary(), Catch::Contains("ops[5]") && Catch::Contains("a wait op needs vmcnt, lgkmcnt or both"));
  // With a count it is a schedule both accept.
  s.ops[5].lgkmcnt = 0;
  CHECK(parse_attention_schedule(to_json(s)) == plan(s));
}
