// Attention schedules: the JSON (errors with paths, canonical round trip), the
// explicit baseline plan accepted, and every mutant class refused by the verifier
// with the rule that names its harm.
#include <cdna4/attention.hpp>
#include <cdna4/schedule.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/attention_schedule/loop_picture.hpp"
#include "schedule_test_support.hpp"
#include "verify_cli.hpp"

namespace {

using namespace cdna4;
using K = AttentionOpKind;

std::string attention_dir() { return schedule_test::schedules_dir() + "attention/"; }

// The baseline plan of docs (num_stages = 2) written out: G2S of K and V in stage
// 0; in stage 1 the K wait and barrier, s2r k, dot_qk, the softmax, the V wait and
// barrier, s2r v, dot_pv and the barrier before the slot is refilled.
AttentionSchedule explicit_baseline(const std::string& name, int dim, int waves, int block_k) {
  AttentionSchedule s;
  s.name = name;
  s.dim = dim;
  s.waves = waves;
  s.block_q = 16 * waves;
  s.block_k = block_k;
  s.lds_buffers = 2;
  const int parts = block_k * dim * 2 / (1024 * waves);
  auto add = [&](K kind, int stage, int phase) -> AttentionOp& {
    AttentionOp op;
    op.kind = kind;
    op.stage = stage;
    op.order = static_cast<int>(s.ops.size());
    op.phase = phase;
    s.ops.push_back(op);
    return s.ops.back();
  };
  for (KvOperand o : {KvOperand::k, KvOperand::v})
    for (int p = 0; p < parts; ++p) {
      AttentionOp& g = add(K::g2s, 0, 0);
      g.operand = o;
      g.part = p;
    }
  add(K::barrier, 1, 1).vmcnt = 3 * parts;  // K of this block: V, and next block's K and V may stay in flight
  add(K::s2r, 1, 1).operand = KvOperand::k;
  for (int c = 0; c < dim / 32; ++c) {
    AttentionOp& d = add(K::dot_qk, 1, 1);
    d.kpack = c;
    if (c == 0) d.lgkmcnt = 0;
  }
  for (K kind : {K::mask, K::row_max, K::exp, K::row_sum, K::rescale_o, K::convert_p}) add(kind, 1, 1);
  add(K::barrier, 1, 2).vmcnt = 2 * parts;
  add(K::s2r, 1, 2).operand = KvOperand::v;
  for (int c = 0; c < block_k / 16; ++c) {
    AttentionOp& d = add(K::dot_pv, 1, 2);
    d.kpack = c;
    if (c == 0) d.lgkmcnt = 0;
  }
  add(K::barrier, 1, 2);
  return s;
}

std::vector<std::string> rules_of(const VerifyReport& r) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings) out.push_back(f.rule);
  return out;
}

bool has_rule(const VerifyReport& r, const std::string& rule) {
  for (const Finding& f : r.findings)
    if (f.rule == rule) return true;
  return false;
}

std::string parse_error(const std::string& text) {
  try {
    parse_attention_schedule(text, "t.json");
  } catch (const ScheduleError& e) {
    return e.json_path() + ": " + e.what();
  }
  return "accepted";
}

const std::string kHead = R"("kind": "attention", "name": "a", "target": "gfx950", "dim": 128, "waves": 4, "block_k": 64)";

// Renumber orders after moving ops in the array.
void renumber(AttentionSchedule& s) {
  for (size_t i = 0; i < s.ops.size(); ++i) s.ops[i].order = static_cast<int>(i);
}

int find_op(const AttentionSchedule& s, K kind, std::optional<int> kpack = std::nullopt) {
  for (size_t i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].kind == kind && (!kpack || s.ops[i].kpack == kpack)) return static_cast<int>(i);
  return -1;
}

// Moves op `from` to just before op `to` (after, with `after`), in `to`'s phase.
AttentionSchedule moved(const AttentionSchedule& s, int from, int to, bool after = false) {
  AttentionSchedule m = s;
  AttentionOp op = m.ops[from];
  op.phase = m.ops[to].phase;
  const AttentionOp target = m.ops[to];
  m.ops.erase(m.ops.begin() + from);
  int at = 0;
  while (!(m.ops[at] == target)) ++at;
  m.ops.insert(m.ops.begin() + at + (after ? 1 : 0), op);
  renumber(m);
  return m;
}

}  // namespace

TEST_CASE("attention schedule errors name the file, the JSON path and what was expected", "[attention-schedule]") {
  CHECK(parse_error("{" + kHead + R"(, "num_stages": 2, "lds_buffers": 2})") == "accepted");
  const std::pair<std::string, std::string> cases[] = {
      {R"({"kind": "attention", "name": "a", "target": "gfx950", "dim": 96, "waves": 4, "block_k": 64, "num_stages": 2})", "dim: t.json: dim: expected 64 or 128, got 96"},
      {R"({"kind": "attention", "name": "a", "target": "gfx950", "dim": 64, "waves": 6, "block_k": 64, "num_stages": 2})", "waves: t.json: waves: expected 4 or 8, got 6"},
      {"{" + kHead + R"(, "block_q": 128, "num_stages": 2})", "block_q: t.json: block_q: expected 16 * waves = 64 (each wave owns 16 query rows), got 128"},
      {R"({"kind": "attention", "name": "a", "target": "gfx950", "dim": 128, "waves": 4, "block_k": 48, "num_stages": 2})", "block_k: t.json: block_k: expected 32, 64 or 128, got 48"},
      {"{" + kHead + R"(, "lds_buffers": 5, "num_stages": 2})", "lds_buffers: t.json: lds_buffers: expected an integer in 1..4, got 5"},
      {"{" + kHead + R"(, "num_stages": 2, "ops": []})", "num_stages: t.json: num_stages: give either num_stages (the planner writes the ops) or ops, not both"},
      {"{" + kHead + R"(, "heads": 2, "num_stages": 2})", "heads: t.json: heads: unknown field (allowed here: kind, name, target, dim, waves, block_q, block_k, lds_buffers, num_stages, ops)"},
      {"{" + kHead + R"(, "ops": [{"op": "g2s", "operand": "k", "part": 4, "stage": 0, "order": 0}]})", "ops[0].part: t.json: ops[0].part: expected an integer in 0..3, got 4"},
      {"{" + kHead + R"(, "ops": [{"op": "barrier", "stage": 0, "order": 0}, {"op": "dot_qk", "kpack": 4, "stage": 0, "order": 1}]})", "ops[1].kpack: t.json: ops[1].kpack: expected an integer in 0..3, got 4"},
      {"{" + kHead + R"(, "ops": [{"op": "s2r", "operand": "v", "kpack": 4, "stage": 0, "order": 0}]})", "ops[0].kpack: t.json: ops[0].kpack: expected an integer in 0..3, got 4"},
      {"{" + kHead + R"(, "ops": [{"op": "mask", "kpack": 0, "stage": 0, "order": 0}]})", "ops[0].kpack: t.json: ops[0].kpack: unknown field (allowed here: op, stage, order, phase, vmcnt, lgkmcnt)"},
      {"{" + kHead + R"(, "ops": [{"op": "mfma", "stage": 0, "order": 0}]})", "ops[0].op: t.json: ops[0].op: expected one of \"g2s\", \"s2r\", \"dot_qk\", \"mask\", \"row_max\", \"exp\", \"row_sum\", \"rescale_o\", \"convert_p\", \"dot_pv\", \"barrier\", \"setprio\", \"wait\", got \"mfma\""},
      {"{" + kHead + R"(, "ops": [{"op": "wait", "stage": 0, "order": 0}]})", "ops[0]: t.json: ops[0]: a wait op needs vmcnt, lgkmcnt or both"},
      {R"({"kind": "attention", "name": "a", "target": "gfx950", "dim": 64, "waves": 8, "block_k": 32, "num_stages": 2})", "block_k: t.json: block_k: the K and V blocks (32 keys x 64 bf16 = 4096 bytes) must split into whole G2S parts of waves * 1024 = 8192 bytes; use a larger block_k or fewer waves"},
  };
  for (const auto& [text, want] : cases) CHECK(parse_error(text) == want);
}

// The JSON path and the words after "file: path: ".
std::pair<std::string, std::string> refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const ScheduleError& e) {
    const std::string what = e.what();
    return {e.json_path(), what.substr(e.file().size() + e.json_path().size() + 4)};
  }
  return {"", "accepted"};
}

TEST_CASE("a schedule built in code is refused by plan() with the path and words the parser gives its JSON", "[attention-schedule]") {
  AttentionSchedule stages;
  stages.name = "a";
  stages.num_stages = 2;
  using Change = std::function<void(AttentionSchedule&)>;
  // The explicit baseline in place of num_stages, with `change` made to its ops.
  const auto in_ops = [](std::function<void(std::vector<AttentionOp>&)> change) -> Change {
    return [change](AttentionSchedule& s) {
      s.num_stages.reset();
      s.ops = explicit_baseline("a", 128, 4, 64).ops;
      change(s.ops);
    };
  };
  const std::pair<const char*, Change> changes[] = {
      {"target", [](AttentionSchedule& s) { s.target = "gfx942"; }},
      {"dim", [](AttentionSchedule& s) { s.dim = 96; }},
      {"waves", [](AttentionSchedule& s) { s.waves = 6; }},
      {"block_q", [](AttentionSchedule& s) { s.block_q = 128; }},
      {"block_q", [](AttentionSchedule& s) { s.block_q = 2048; }},
      {"block_k", [](AttentionSchedule& s) { s.block_k = 48; }},
      {"block_k", [](AttentionSchedule& s) { s.dim = 64, s.waves = 8, s.block_q = 128, s.block_k = 32; }},
      {"lds_buffers", [](AttentionSchedule& s) { s.lds_buffers = 5; }},
      {"lds_buffers", [](AttentionSchedule& s) { s.block_k = 128, s.lds_buffers = 3; }},
      {"num_stages", [](AttentionSchedule& s) { s.num_stages = 3; }},
      {"ops[0].part", in_ops([](std::vector<AttentionOp>& ops) { ops[0].part = 4; })},
      {"ops[10].kpack", in_ops([](std::vector<AttentionOp>& ops) { ops[10].kpack = 4; })},
      {"ops[2].stage", in_ops([](std::vector<AttentionOp>& ops) { ops[2].stage = 16; })},
      {"ops[3].phase", in_ops([](std::vector<AttentionOp>& ops) { ops[3].phase = 256; })},
      {"ops[8].vmcnt", in_ops([](std::vector<AttentionOp>& ops) { ops[8].vmcnt = -1; })},
      {"ops[27].prio", in_ops([](std::vector<AttentionOp>& ops) {
         AttentionOp prio;
         prio.kind = K::setprio, prio.order = 100, prio.phase = 9, prio.prio = 4;
         ops.push_back(prio);
       })},
  };
  for (const auto& [path, change] : changes) {
    AttentionSchedule s = stages;
    change(s);
    INFO(path);
    const auto built = refusal([&] { plan(s); });
    CHECK(built.first == path);
    CHECK(built == refusal([&] { parse_attention_schedule(to_json(s), "t.json"); }));
  }
  CHECK(refusal([&] { plan(stages); }).second == "accepted");
}

TEST_CASE("a GEMM schedule given as attention, and an attention schedule given as GEMM, say which kind they are", "[attention-schedule]") {
  const std::string gemm = schedule_test::schedules_dir() + "baseline_256x256x64_w8.json";
  const std::string attention = attention_dir() + "attn_fwd_d128.json";
  CHECK(schedule_kind(schedule_test::read_text(gemm)) == "gemm");
  CHECK(schedule_kind(schedule_test::read_text(attention)) == "attention");
  try {
    load_attention_schedule(gemm);
    FAIL("a GEMM schedule read as attention");
  } catch (const ScheduleError& e) {
    CHECK(e.json_path() == "kind");
    CHECK(std::string(e.what()).find("this is a GEMM schedule (no \"kind\")") != std::string::npos);
  }
  try {
    load_schedule(attention);
    FAIL("an attention schedule read as GEMM");
  } catch (const ScheduleError& e) {
    CHECK(e.json_path() == "kind");
    CHECK(std::string(e.what()).find("this is an attention schedule (kind \"attention\")") != std::string::npos);
  }
  CHECK_THROWS_AS(schedule_kind(R"({"kind": "conv"})"), ScheduleError);
}

TEST_CASE("shipped attention schedules and fixtures round-trip through canonical JSON", "[attention-schedule]") {
  int files = 0;
  for (const std::string dir : {attention_dir(), attention_dir() + "fixtures/"})
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() != ".json" || e.path().filename() == "attention.schema.json") continue;
      ++files;
      const AttentionSchedule s = load_attention_schedule(e.path().string());
      const std::string text = to_json(s);
      CHECK(parse_attention_schedule(text) == s);
      CHECK(to_json(parse_attention_schedule(text)) == text);
      if (!s.ops.empty()) CHECK(text == schedule_test::read_text(e.path().string()));  // explicit files are canonical
    }
  CHECK(files >= 8);
}

TEST_CASE("the explicit baseline plan is accepted for every geometry, and is the shipped explicit schedule", "[attention-schedule]") {
  CHECK(load_attention_schedule(attention_dir() + "attn_fwd_d128_explicit.json") ==
        explicit_baseline("attn_fwd_d128_explicit", 128, 4, 64));
  int geometries = 0;
  for (int dim : {64, 128})
    for (int waves : {4, 8})
      for (int block_k : {32, 64, 128}) {
        if (block_k * dim * 2 % (1024 * waves) != 0) continue;
        ++geometries;
        const AttentionSchedule s = explicit_baseline("b", dim, waves, block_k);
        const VerifyReport r = verify(s);
        INFO(to_json(s) << r.summary());
        CHECK(r.accepted());
        CHECK(r.k_tiles_checked.size() == size_t(2 * 2 + 2 + 2));
      }
  CHECK(geometries == 11);
  CHECK_NOTHROW(verify_or_throw(explicit_baseline("b", 128, 4, 64)));
}

TEST_CASE("every dropped wait, dropped barrier and softmax op moved before its producer is refused", "[attention-schedule][mutants]") {
  for (const auto& [dim, waves] : {std::pair{128, 4}, std::pair{64, 8}}) {
    const AttentionSchedule base = explicit_baseline("b", dim, waves, 64);
    int mutants = 0;
    auto refused = [&](const AttentionSchedule& m, const std::string& what, const std::string& rule) {
      ++mutants;
      const VerifyReport r = verify(m);
      INFO(what << "\n" << r.summary());
      CHECK(has_rule(r, rule));
    };
    for (int i = 0; i < static_cast<int>(base.ops.size()); ++i) {
      const AttentionOp& op = base.ops[i];
      if (op.vmcnt) {
        AttentionSchedule m = base;
        m.ops[i].vmcnt.reset();
        refused(m, describe(base, i) + " without vmcnt", "raw-race");
      }
      if (op.lgkmcnt) {
        AttentionSchedule m = base;
        m.ops[i].lgkmcnt.reset();
        refused(m, describe(base, i) + " without lgkmcnt", "dot-lgkmcnt");
      }
      if (op.kind == K::barrier) {  // its wait stays, as a bare s_waitcnt
        AttentionSchedule m = base;
        if (op.vmcnt) m.ops[i].kind = K::wait;
        else m.ops.erase(m.ops.begin() + i);
        refused(m, describe(base, i) + " dropped", op.vmcnt ? "raw-race" : "war-race");
      }
    }
    // Each op of the chain moved just before its producer.
    const std::pair<K, K> consumer_producer[] = {
        {K::mask, K::dot_qk},  {K::row_max, K::mask},   {K::exp, K::row_max},  {K::row_sum, K::exp},
        {K::rescale_o, K::row_max}, {K::convert_p, K::exp}, {K::dot_pv, K::convert_p}, {K::dot_qk, K::s2r}};
    for (const auto& [consumer, producer] : consumer_producer) {
      const int c = find_op(base, consumer), p = find_op(base, producer);
      refused(moved(base, c, p), describe(base, c) + " moved before " + describe(base, p), "register-chain");
    }
    // The second kpack of each dot ahead of the first; rescale_o after the last dot_pv.
    for (K dot : {K::dot_qk, K::dot_pv})
      refused(moved(base, find_op(base, dot, 1), find_op(base, dot, 0)), std::string(to_string(dot)) + " kpack 1 before 0",
              "register-chain");
    refused(moved(base, find_op(base, K::rescale_o), find_op(base, K::dot_pv, 3), true), "rescale_o after dot_pv",
            "register-chain");
    CHECK(mutants >= 16);
  }
}

TEST_CASE("block t+1 overwriting registers block t still reads is refused as register-overwrite", "[attention-schedule]") {
  // dot_qk of the next block (stage 0) before this block's convert_p (stage 1), with
  // its K loaded and waited in stage 0 too: S is clobbered before P is taken from it.
  AttentionSchedule s = explicit_baseline("b", 128, 4, 64);
  for (AttentionOp& op : s.ops)
    if ((op.kind == K::s2r && op.operand == KvOperand::k) || op.kind == K::dot_qk) op.stage = 0;
  const VerifyReport r = verify(s);
  INFO(r.summary());
  CHECK(has_rule(r, "register-overwrite"));
}

TEST_CASE("the shipped attention fixtures are refused with the rule of their harm", "[attention-schedule]") {
  const std::pair<const char*, const char*> fixtures[] = {
      {"attn_no_k_vmcnt.json", "raw-race"},
      {"attn_no_v_barrier.json", "raw-race"},
      {"attn_row_max_before_dot_qk.json", "register-chain"},
      {"attn_dot_pv_before_convert_p.json", "register-chain"},
      {"attn_rescale_o_after_dot_pv.json", "register-chain"},
  };
  for (const auto& [file, rule] : fixtures) {
    const AttentionSchedule s = load_attention_schedule(attention_dir() + "fixtures/" + file);
    const VerifyReport r = verify(s);
    INFO(file << "\n" << r.summary());
    CHECK(has_rule(r, rule));
    CHECK_THROWS_AS(verify_or_throw(s), Error);
  }
}

TEST_CASE("findings name the rule, the op, the iteration, the KV block and the wave", "[attention-schedule]") {
  const AttentionSchedule s = load_attention_schedule(attention_dir() + "fixtures/attn_no_v_barrier.json");
  const VerifyReport r = verify(s);
  REQUIRE(!r.findings.empty());
  const Finding& f = r.findings.front();
  CHECK(f.rule == "raw-race");
  REQUIRE(f.op >= 0);
  CHECK(s.ops[f.op].kind == K::s2r);
  CHECK(s.ops[f.op].operand == KvOperand::v);
  CHECK(f.message.find(describe(s, f.op)) != std::string::npos);
  CHECK(f.message.find("iteration i=") != std::string::npos);
  CHECK(f.message.find("(KV block ") != std::string::npos);
  CHECK(f.message.find(", wave ") != std::string::npos);
  CHECK(describe(s, 0) == "ops[0] (g2s k part=0 stage=0 order=0 phase=0)");
}

TEST_CASE("static rules: coverage, LDS capacity, orders", "[attention-schedule]") {
  const AttentionSchedule base = explicit_baseline("b", 128, 4, 64);
  AttentionSchedule no_mask = base;
  no_mask.ops.erase(no_mask.ops.begin() + find_op(base, K::mask));
  CHECK(has_rule(verify(no_mask), "op-coverage"));
  AttentionSchedule twice = base;
  twice.ops.push_back(base.ops[find_op(base, K::dot_pv, 2)]);
  twice.ops.back().order = 100;
  CHECK(has_rule(verify(twice), "op-coverage"));
  AttentionSchedule no_part = base;
  no_part.ops.erase(no_part.ops.begin() + 5);
  CHECK(has_rule(verify(no_part), "g2s-coverage"));
  AttentionSchedule big = explicit_baseline("b", 128, 4, 128);
  big.lds_buffers = 3;  // 3 x 2 x 32 KiB
  CHECK(has_rule(verify(big), "lds-capacity"));
  AttentionSchedule same_order = base;
  same_order.ops[3].order = 2;
  CHECK(has_rule(verify(same_order), "unique-order"));
  AttentionSchedule unplanned = base;
  unplanned.ops.clear();
  unplanned.num_stages = 2;
  CHECK(rules_of(verify(unplanned)) == std::vector<std::string>{"not-planned"});
}

TEST_CASE("the loop picture shows one iteration by phase", "[attention-schedule]") {
  const std::string picture = detail::attention_loop_picture(explicit_baseline("b", 128, 4, 64));
  INFO(picture);
  CHECK(picture.find(" phase 0:\n  [t=i-0] g2s k parts 0..3\n  [t=i-0] g2s v parts 0..3\n") != std::string::npos);
  CHECK(picture.find("  [t=i-1] s_waitcnt vmcnt(12); barrier\n") != std::string::npos);
  CHECK(picture.find("  [t=i-1] s2r k (all kpacks)\n  [t=i-1] s_waitcnt lgkmcnt(0); dot_qk kpacks 0..3\n  [t=i-1] mask\n") !=
        std::string::npos);
  CHECK(picture.find(" phase 2:\n") != std::string::npos);
}

TEST_CASE("cdna4-asmgen --verify takes attention schedules: verdict, loop picture, JSON", "[attention-schedule][cli]") {
  std::ostringstream good;
  CHECK(tools::run_verify_cli(attention_dir() + "attn_fwd_d128_explicit.json", good) == 0);
  CHECK(good.str().find(": accepted (simulated K = 8,7,6,5,4,3,2,1 tiles)\nloop body (2 stages, 2 LDS slots;") != std::string::npos);
  CHECK(good.str().find("\"kind\": \"attention\"") != std::string::npos);
  std::ostringstream bad;
  CHECK(tools::run_verify_cli(attention_dir() + "fixtures/attn_rescale_o_after_dot_pv.json", bad) == 3);
  CHECK(bad.str().find("[register-chain]") != std::string::npos);
  // num_stages only: verified as the planner writes it, as compile_attention runs it.
  for (const char* file : {"attn_fwd_d64.json", "attn_fwd_d128.json"}) {
    std::ostringstream planned;
    CHECK(tools::run_verify_cli(attention_dir() + file, planned) == 0);
    CHECK(planned.str().find(": accepted (") != std::string::npos);
    CHECK(planned.str().find("\"ops\": [") != std::string::npos);
  }
}

TEST_CASE("the documented attention loop picture is the verifier's", "[attention-schedule]") {
  const std::string readme = schedule_test::read_text(schedule_test::schedules_dir() + "README.md");
  const std::string marker = "<!-- attention-loop-picture: attn_fwd_d128_explicit -->\n```\n";
  const size_t at = readme.find(marker);
  REQUIRE(at != std::string::npos);
  const size_t begin = at + marker.size();
  const std::string documented = readme.substr(begin, readme.find("```", begin) - begin);
  CHECK(documented == detail::attention_loop_picture(load_attention_schedule(attention_dir() + "attn_fwd_d128_explicit.json")));
}

TEST_CASE("a deeper pipeline verifies with enough slots and waits, and is refused with too few", "[attention-schedule]") {
  // G2S two blocks ahead (compute in stage 2): K of block t waits behind V of t and
  // K, V of t+1 and t+2 (5 parts' worth per operand part), V behind 4.
  AttentionSchedule deep = explicit_baseline("deep", 128, 4, 64);
  const int parts = 4;
  for (AttentionOp& op : deep.ops)
    if (op.stage == 1) op.stage = 2;
  deep.ops[find_op(deep, K::barrier)].vmcnt = 5 * parts;
  deep.ops[find_op(deep, K::s2r) + 1 + 4 + 6].vmcnt = 4 * parts;  // the V barrier: after s2r k, 4 dot_qk, 6 softmax ops
  REQUIRE(deep.ops[find_op(deep, K::s2r) + 11].kind == K::barrier);
  deep.lds_buffers = 3;
  const VerifyReport r = verify(deep);
  INFO(r.summary());
  CHECK(r.accepted());
  AttentionSchedule two_slots = deep;
  two_slots.lds_buffers = 2;
  CHECK(has_rule(verify(two_slots), "war-race"));
  AttentionSchedule late_v = explicit_baseline("b", 128, 4, 64);  // s2r v after the first dot_pv
  {
    const AttentionSchedule m = moved(late_v, find_op(late_v, K::s2r) + 12, find_op(late_v, K::dot_pv, 0), true);
    REQUIRE(m.ops[find_op(m, K::dot_pv, 0) + 1].kind == K::s2r);
    CHECK(has_rule(verify(m), "register-chain"));
  }
}
