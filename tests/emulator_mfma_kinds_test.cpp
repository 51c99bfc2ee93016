// Every MFMA kind the emulator executes, one MFMA each with distinct inputs and
// every element of D checked. Layouts are written out here from the generic
// MFMA rule (lane = row + M * (k / per_lane), element = k % per_lane; D rows in
// groups of 4 per lane group), independently of the emulator's table.
// Floating-point references follow the documented policy fp32-fma-chain-k-order
// (f16 and bf16 products are exact in fp32); i8 kinds wrap around in int32.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "emulator_one_mfma.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

enum class Type { bf16, f16, i8 };

struct Kind {
  const char* mnemonic;
  int m, n, k, regs;  // regs: dwords per lane in A and B
  Type type;
  int wait_states;    // before a VALU may read the result: passes + 4
};

const Kind kKinds[] = {
    {"v_mfma_f32_16x16x32_bf16", 16, 16, 32, 4, Type::bf16, 8},
    {"v_mfma_f32_32x32x16_bf16", 32, 32, 16, 4, Type::bf16, 12},
    {"v_mfma_f32_16x16x16_bf16", 16, 16, 16, 2, Type::bf16, 8},
    {"v_mfma_f32_32x32x8_bf16", 32, 32, 8, 2, Type::bf16, 12},
    {"v_mfma_f32_16x16x16_f16", 16, 16, 16, 2, Type::f16, 8},
    {"v_mfma_f32_32x32x8_f16", 32, 32, 8, 2, Type::f16, 12},
    {"v_mfma_f32_16x16x32_f16", 16, 16, 32, 4, Type::f16, 8},
    {"v_mfma_f32_32x32x16_f16", 32, 32, 16, 4, Type::f16, 12},
    {"v_mfma_i32_16x16x32_i8", 16, 16, 32, 2, Type::i8, 8},
    {"v_mfma_i32_32x32x16_i8", 32, 32, 16, 2, Type::i8, 12},
    {"v_mfma_i32_16x16x64_i8", 16, 16, 64, 4, Type::i8, 8},
    {"v_mfma_i32_32x32x32_i8", 32, 32, 32, 4, Type::i8, 12},
};

int per_lane(const Kind& s) { return s.k * s.m / 64; }
int per_reg(const Kind& s) { return per_lane(s) / s.regs; }
int out_regs(const Kind& s) { return s.m * s.n / 64; }
// Element e of register r in lane l holds A[l % M][k] and B[k][l % N] with this k.
int k_of(const Kind& s, int lane, int reg, int e) { return per_lane(s) * (lane / s.m) + per_reg(s) * reg + e; }
int d_row(const Kind& s, int lane, int reg) { return 4 * (64 / s.n) * (reg / 4) + 4 * (lane / s.n) + reg % 4; }

// Exact encodings of the (representable) test values.
uint32_t encode_f16(float f) {
  if (f == 0.0f) return std::signbit(f) ? 0x8000 : 0;
  int e;
  const float m = std::frexp(std::fabs(f), &e);  // |f| = m * 2^e, m in [0.5, 1)
  const uint32_t mantissa = uint32_t(std::ldexp(m, 11)) & 0x3ff;
  return (f < 0 ? 0x8000u : 0u) | uint32_t(e - 1 + 15) << 10 | mantissa;
}
uint32_t encode(Type t, double v) {
  if (t == Type::bf16) return bits(float(v)) >> 16;
  if (t == Type::f16) return encode_f16(float(v));
  return uint32_t(int8_t(v)) & 0xff;
}

// Distinct values, exact in bf16 and f16: A's mantissa names k and its exponent
// and sign name i; B's mantissa names j and k / 8, its exponent k % 8.
double a_value(const Kind& s, int i, int k) {
  if (s.type == Type::i8) return (i * 37 + k * 11) % 255 - 127;
  return (i >= 16 ? -1 : 1) * std::ldexp(1.0 + k / 128.0, i % 16 - 8);
}
double b_value(const Kind& s, int k, int j) {
  if (s.type == Type::i8) return (k * 29 + j * 13 + 5) % 253 - 126;
  return std::ldexp(1.0 + (j + 32 * ((k / 8) % 4)) / 128.0, k % 8 - 4);
}
uint32_t c_bits(const Kind& s, int i, int j) {
  if (s.type == Type::i8) return uint32_t(0x7ff00000 + i * 4099 + j * 7);  // sums wrap past INT32_MAX
  return bits(float(i * s.n + j) * 0.25f);
}

uint32_t expected_d(const Kind& s, int i, int j) {
  if (s.type == Type::i8) {
    uint32_t sum = c_bits(s, i, j);
    for (int k = 0; k < s.k; ++k) sum += uint32_t(int32_t(a_value(s, i, k)) * int32_t(b_value(s, k, j)));
    return sum;
  }
  float acc = f32(c_bits(s, i, j));
  for (int k = 0; k < s.k; ++k) acc = std::fma(float(a_value(s, i, k)), float(b_value(s, k, j)), acc);
  return bits(acc);
}

std::string kernel_body(const Kind& s, bool agpr_accumulator) {
  std::string body = "  s_load_dwordx8 s[4:11], s[0:1], 0\n  v_lshlrev_b32 v3, 2, v0\n  s_waitcnt lgkmcnt(0)\n";
  for (int r = 0; r < s.regs; ++r) {
    body += fmt::format("  global_load_dword v{}, v3, s[4:5] offset:{}\n", 10 + r, 256 * r);
    body += fmt::format("  global_load_dword v{}, v3, s[6:7] offset:{}\n", 14 + r, 256 * r);
  }
  for (int r = 0; r < out_regs(s); ++r)
    body += fmt::format("  global_load_dword v{}, v3, s[8:9] offset:{}\n", 20 + r, 256 * r);
  body += "  s_waitcnt vmcnt(0)\n";
  const int last = out_regs(s) - 1;
  const std::string acc = agpr_accumulator ? fmt::format("a[0:{}]", last) : fmt::format("v[20:{}]", 20 + last);
  if (agpr_accumulator)
    for (int r = 0; r <= last; ++r) body += fmt::format("  v_accvgpr_write_b32 a{}, v{}\n", r, 20 + r);
  body += fmt::format("  s_nop 2\n  {} {}, v[10:{}], v[14:{}], {}\n  s_nop 7\n  s_nop 7\n", s.mnemonic, acc,
                      9 + s.regs, 13 + s.regs, acc);
  for (int r = 0; r <= last; ++r) {
    if (agpr_accumulator) body += fmt::format("  v_accvgpr_read_b32 v{}, a{}\n", 20 + r, r);
    body += fmt::format("  global_store_dword v3, v{}, s[10:11] offset:{}\n", 20 + r, 256 * r);
  }
  return body + "  s_waitcnt vmcnt(0)\n  s_endpgm\n";
}

void check_kind(const Kind& s, bool agpr_accumulator) {
  KernelShape shape;
  shape.vgprs = 64 + 16;
  shape.accum_offset = 64;
  const TestKernel k = TestKernel::build(kernel_body(s, agpr_accumulator), shape);
  std::vector<uint32_t> a(s.regs * 64, 0), b(s.regs * 64, 0), c(out_regs(s) * 64), d(out_regs(s) * 64, 0);
  const int width = 32 / per_reg(s);
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < s.regs; ++r)
      for (int e = 0; e < per_reg(s); ++e) {
        const int kk = k_of(s, l, r, e);
        a[r * 64 + l] |= encode(s.type, a_value(s, l % s.m, kk)) << (width * e);
        b[r * 64 + l] |= encode(s.type, b_value(s, kk, l % s.n)) << (width * e);
      }
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < out_regs(s); ++r) c[r * 64 + l] = c_bits(s, d_row(s, l, r), l % s.n);
  Args args;
  args.add(a);
  args.add(b);
  args.add(c);
  args.add(d);
  const emu::RunStats stats = run_race_free(k, args.dispatch(), randomized(3));
  CHECK(stats.mfma_macs == uint64_t(s.m) * s.n * s.k);
  std::set<std::pair<int, int>> seen;
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < out_regs(s); ++r) {
      const int i = d_row(s, l, r), j = l % s.n;
      seen.insert({i, j});
      INFO(s.mnemonic << (agpr_accumulator ? " (AGPR C/D)" : " (VGPR C/D)") << " D[" << i << "][" << j << "] lane " << l
                      << " reg " << r);
      REQUIRE(d[r * 64 + l] == expected_d(s, i, j));
    }
  REQUIRE(seen.size() == size_t(s.m * s.n));
}

}  // namespace

TEST_CASE("MFMA kinds: v_mfma_f32_16x16x16_bf16 (bf16_1k)", "[emulator][mfma]") { check_kind(kKinds[2], false); }
TEST_CASE("MFMA kinds: v_mfma_f32_32x32x8_bf16 (bf16_1k)", "[emulator][mfma]") { check_kind(kKinds[3], true); }
TEST_CASE("MFMA kinds: v_mfma_f32_16x16x16_f16", "[emulator][mfma]") { check_kind(kKinds[4], true); }
TEST_CASE("MFMA kinds: v_mfma_f32_32x32x8_f16", "[emulator][mfma]") { check_kind(kKinds[5], false); }
TEST_CASE("MFMA kinds: v_mfma_f32_16x16x32_f16", "[emulator][mfma]") { check_kind(kKinds[6], false); }
TEST_CASE("MFMA kinds: v_mfma_f32_32x32x16_f16", "[emulator][mfma]") { check_kind(kKinds[7], true); }
TEST_CASE("MFMA kinds: v_mfma_i32_16x16x32_i8", "[emulator][mfma]") { check_kind(kKinds[8], true); }
TEST_CASE("MFMA kinds: v_mfma_i32_32x32x16_i8", "[emulator][mfma]") { check_kind(kKinds[9], false); }
TEST_CASE("MFMA kinds: v_mfma_i32_16x16x64_i8", "[emulator][mfma]") { check_kind(kKinds[10], false); }
TEST_CASE("MFMA kinds: v_mfma_i32_32x32x32_i8", "[emulator][mfma]") { check_kind(kKinds[11], true); }

TEST_CASE("MFMA kinds: the bf16 shapes of the generic layout rule agree with the K=32/16 forms", "[emulator][mfma]") {
  check_kind(kKinds[0], false);
  check_kind(kKinds[1], true);
}

TEST_CASE("MFMA kinds: reading a result early is a hazard with the kind's passes", "[emulator][mfma][hazards]") {
  for (const Kind& s : kKinds) {
    const int last = out_regs(s) - 1;
    const std::string mfma = fmt::format("{} a[0:{}], v[8:{}], v[16:{}], a[0:{}]", s.mnemonic, last,
                                         7 + s.regs, 15 + s.regs, last);
    KernelShape shape;
    shape.vgprs = 64;
    shape.accum_offset = 32;
    auto hazards = [&](int nops) {
      return reports_after(mfma, nops, fmt::format("v_accvgpr_read_b32 v1, a{}", last), shape);
    };
    INFO(s.mnemonic);
    const std::string early = hazards(s.wait_states - 1);
    CHECK(early.find(fmt::format("needs {} wait states", s.wait_states)) != std::string::npos);
    CHECK(hazards(s.wait_states).empty());
  }
}
