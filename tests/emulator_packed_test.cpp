// VOP3P packed fp32 operations (v_pk_add/mul/fma_f32, v_pk_mov_b32): every
// op_sel / op_sel_hi / neg_lo / neg_hi combination, clamp, EXEC masking, SGPR
// pair sources, and the modifiers that are refused rather than ignored.
#include <catch2/catch.hpp>

#include <cmath>

#include "cdna4/error.hpp"
#include "emulator_test_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

// Inputs per lane l: v[2:3] = (a0, a1), v[4:5] = (b0, b1), v[6:7] = (c0, c1),
// all distinct, exact in fp32 under every operation below.
float input(int reg_pair, int dword, uint32_t lane) {
  return float(int(lane) - 20) + 0.25f * float(1 + dword) + 100.0f * float(reg_pair);
}

const std::string kSetup = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 3, v0
  v_cvt_f32_i32 v8, v0
  v_subrev_f32 v8, 0x41a00000, v8
  v_add_f32 v2, 0.25, v8
  v_add_f32 v3, 0.5, v8
  v_add_f32 v9, 0x42c80000, v8
  v_add_f32 v4, 0.25, v9
  v_add_f32 v5, 0.5, v9
  v_add_f32 v9, 0x43480000, v8
  v_add_f32 v6, 0.25, v9
  v_add_f32 v7, 0.5, v9
  s_waitcnt lgkmcnt(0)
)";

struct PackedCase {
  std::string modifiers;  // text after the operands
  int op_sel[3];
  int op_sel_hi[3];
  int neg_lo[3];
  int neg_hi[3];
  bool clamp;
};

std::string list3(const int (&v)[3], int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) s += fmt::format("{}{}", i ? "," : "", v[i]);
  return s + "]";
}

// Every op_sel x op_sel_hi x neg_lo x neg_hi bit pattern for n sources (n <= 3),
// plus clamp.
std::vector<PackedCase> modifier_cases(int n) {
  std::vector<PackedCase> cases;
  const int bits = 4 * n;
  for (uint32_t mask = 0; mask < (1u << bits); ++mask) {
    PackedCase c{};
    for (int s = 0; s < n; ++s) {
      c.op_sel[s] = (mask >> s) & 1;
      c.op_sel_hi[s] = 1 - ((mask >> (n + s)) & 1);  // default 1: the first cases keep it
      c.neg_lo[s] = (mask >> (2 * n + s)) & 1;
      c.neg_hi[s] = (mask >> (3 * n + s)) & 1;
    }
    c.modifiers = fmt::format(" op_sel:{} op_sel_hi:{} neg_lo:{} neg_hi:{}", list3(c.op_sel, n), list3(c.op_sel_hi, n),
                              list3(c.neg_lo, n), list3(c.neg_hi, n));
    cases.push_back(c);
  }
  PackedCase clamped{};
  for (int s = 0; s < n; ++s) clamped.op_sel_hi[s] = 1;
  clamped.clamp = true;
  clamped.modifiers = " clamp";
  cases.push_back(clamped);
  return cases;
}

float operand_value(const PackedCase& c, int source, bool high, uint32_t lane) {
  int dword = high ? c.op_sel_hi[source] : c.op_sel[source];
  float v = input(source, dword, lane);
  bool negate = high ? c.neg_hi[source] : c.neg_lo[source];
  return negate ? -v : v;
}

float clamp_unit(float r) { return std::isnan(r) ? 0.0f : std::fmin(std::fmax(r, 0.0f), 1.0f); }

struct PackedOp {
  const char* mnemonic;
  int sources;
  float (*reference)(float, float, float);
};

const PackedOp kOps[] = {
    {"v_pk_add_f32", 2, [](float a, float b, float) { return a + b; }},
    {"v_pk_mul_f32", 2, [](float a, float b, float) { return a * b; }},
    {"v_pk_fma_f32", 3, [](float a, float b, float c) { return std::fma(a, b, c); }},
};

// Runs one instruction per case, each writing v[10:11] and storing both dwords.
void check_packed_op(const PackedOp& op) {
  auto cases = modifier_cases(op.sources);
  const char* operands = op.sources == 3 ? "v[10:11], v[2:3], v[4:5], v[6:7]" : "v[10:11], v[2:3], v[4:5]";
  std::string body = kSetup;
  for (const auto& c : cases)
    body += fmt::format("  {} {}{}\n  global_store_dwordx2 v1, v[10:11], s[4:5]\n  s_add_u32 s4, s4, 512\n"
                        "  s_addc_u32 s5, s5, 0\n",
                        op.mnemonic, operands, c.modifiers);
  auto k = TestKernel::build(body + "  s_endpgm\n");
  std::vector<uint32_t> out(128 * cases.size(), 0);
  Args args;
  args.add(out);
  run(k, args.dispatch(), randomized(3));
  for (size_t i = 0; i < cases.size(); ++i) {
    for (uint32_t l = 0; l < 64; ++l) {
      for (int half = 0; half < 2; ++half) {
        float a = operand_value(cases[i], 0, half, l), b = operand_value(cases[i], 1, half, l);
        float c = op.sources == 3 ? operand_value(cases[i], 2, half, l) : 0.0f;
        float want = op.reference(a, b, c);
        if (cases[i].clamp) want = clamp_unit(want);
        INFO(op.mnemonic << cases[i].modifiers << " lane " << l << " half " << half);
        REQUIRE(out[i * 128 + 2 * l + half] == bits(want));
      }
    }
  }
}

std::string error_of(const std::string& body) {
  auto k = TestKernel::build(body + "  s_endpgm\n");
  Args args;
  try {
    run(k, args.dispatch(), instant());
  } catch (const cdna4::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("v_pk_add_f32 honours every op_sel/op_sel_hi/neg_lo/neg_hi combination and clamp", "[emulator]") {
  check_packed_op(kOps[0]);
}

TEST_CASE("v_pk_mul_f32 honours every op_sel/op_sel_hi/neg_lo/neg_hi combination and clamp", "[emulator]") {
  check_packed_op(kOps[1]);
}

TEST_CASE("v_pk_fma_f32 honours op_sel/op_sel_hi/neg_lo/neg_hi on all three sources and clamp", "[emulator]") {
  check_packed_op(kOps[2]);
}

TEST_CASE("v_pk_mov_b32 selects a dword of each source with op_sel", "[emulator]") {
  std::string body = kSetup;
  const int selections[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
  for (const auto& s : selections)
    body += fmt::format("  v_pk_mov_b32 v[10:11], v[2:3], v[4:5] op_sel:[{},{}]\n"
                        "  global_store_dwordx2 v1, v[10:11], s[4:5]\n  s_add_u32 s4, s4, 512\n  s_addc_u32 s5, s5, 0\n",
                        s[0], s[1]);
  auto k = TestKernel::build(body + "  s_endpgm\n");
  std::vector<uint32_t> out(128 * 4, 0);
  Args args;
  args.add(out);
  run(k, args.dispatch(), randomized(5));
  for (int i = 0; i < 4; ++i)
    for (uint32_t l = 0; l < 64; ++l) {
      INFO("op_sel:[" << selections[i][0] << "," << selections[i][1] << "] lane " << l);
      REQUIRE(out[i * 128 + 2 * l] == bits(input(0, selections[i][0], l)));
      REQUIRE(out[i * 128 + 2 * l + 1] == bits(input(1, selections[i][1], l)));
    }
}

TEST_CASE("packed operations respect EXEC and read SGPR pairs", "[emulator]") {
  const std::string body = kSetup + R"(
  v_mov_b32 v10, 7
  v_mov_b32 v11, 9
  s_mov_b32 s8, 0x40000000
  s_mov_b32 s9, 0x40400000
  s_mov_b32 exec_lo, 0x0000ffff
  s_mov_b32 exec_hi, 0x80000000
  v_pk_mul_f32 v[10:11], v[2:3], s[8:9]
  s_mov_b64 exec, -1
  v_pk_mov_b32 v[12:13], s[8:9], v[2:3] op_sel:[1,1]
  v_lshlrev_b32 v20, 4, v0
  global_store_dwordx4 v20, v[10:13], s[4:5]
  s_endpgm
)";
  auto k = TestKernel::build(body);
  std::vector<uint32_t> out(64 * 4, 0);
  Args args;
  args.add(out);
  run(k, args.dispatch(), randomized(7));
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    bool active = l < 16 || l == 63;
    CHECK(out[4 * l + 0] == (active ? bits(input(0, 0, l) * 2.0f) : 7u));
    CHECK(out[4 * l + 1] == (active ? bits(input(0, 1, l) * 3.0f) : 9u));
    CHECK(out[4 * l + 2] == 0x40400000u);
    CHECK(out[4 * l + 3] == bits(input(0, 1, l)));
  }
}

TEST_CASE("packed modifiers the emulator does not model are rejected, not ignored", "[emulator]") {
  struct Rejected {
    const char* instruction;
    const char* reason;
  };
  const Rejected cases[] = {
      {"v_pk_fma_f32 v[0:1], v[2:3], v[4:5], 1.0", "inline constants and literals"},
      {"v_pk_mul_f32 v[0:1], v[2:3], 0.5", "inline constants and literals"},
      {"v_pk_mov_b32 v[0:1], v[2:3], v[4:5] op_sel_hi:[0,1]", "op_sel_hi"},
      {"v_pk_mov_b32 v[0:1], v[2:3], v[4:5] neg_lo:[1,0]", "neg_lo/neg_hi"},
      {"v_pk_mov_b32 v[0:1], v[2:3], v[4:5] neg_hi:[0,1]", "neg_lo/neg_hi"},
      {"v_pk_mov_b32 v[0:1], v[2:3], v[4:5] clamp", "clamp"},
  };
  for (const auto& c : cases) {
    INFO(c.instruction);
    std::string message = error_of(fmt::format("  {}\n", c.instruction));
    CHECK(message.find(c.reason) != std::string::npos);
    CHECK(message.find("V_PK_") != std::string::npos);
    CHECK(message.find("at 0x0") != std::string::npos);
  }
}
