// MFMA lane layouts: every element of D for one MFMA with distinct inputs.
// References: exact small-integer data (any summation order gives the same
// bits), and distinct non-integer data against the documented policy
// "fp32-fma-chain-k-order" (C, then fma over k in order, fp32 RNE).
#include <catch2/catch.hpp>

#include <cmath>

#include "emulator_test_kernel.hpp"
#include "runtime/emulator/mfma_arithmetic.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

struct Shape {
  int m, n, k;
  const char* mnemonic;
  bool agpr_accumulator;
};

uint32_t to_bf16(float f) { return bits(f) >> 16; }  // inputs are exact bf16 values
float bf16_value(float f) { return f32(to_bf16(f) << 16); }

// gfx950 layouts, written out independently of the emulator.
int a_row(int lane, const Shape& s) { return lane % s.m; }
int ab_k(int lane, int reg, int half, const Shape& s) { return 8 * (lane / s.m) + 2 * reg + half; }
int d_row(int lane, int reg, const Shape& s) {
  return s.m == 16 ? 4 * (lane / 16) + reg : 8 * (reg / 4) + 4 * (lane / 32) + reg % 4;
}

std::string mfma_kernel(const Shape& s) {
  int out_regs = s.m * s.n / 64;
  std::string body = R"(
  s_load_dwordx8 s[4:11], s[0:1], 0
  v_lshlrev_b32 v3, 2, v0
  s_waitcnt lgkmcnt(0)
)";
  for (int r = 0; r < 4; ++r) {
    body += fmt::format("  global_load_dword v{}, v3, s[4:5] offset:{}\n", 10 + r, 256 * r);
    body += fmt::format("  global_load_dword v{}, v3, s[6:7] offset:{}\n", 14 + r, 256 * r);
  }
  for (int r = 0; r < out_regs; ++r) body += fmt::format("  global_load_dword v{}, v3, s[8:9] offset:{}\n", 20 + r, 256 * r);
  body += "  s_waitcnt vmcnt(0)\n";
  std::string acc = s.agpr_accumulator ? fmt::format("a[0:{}]", out_regs - 1) : fmt::format("v[20:{}]", 19 + out_regs);
  if (s.agpr_accumulator)
    for (int r = 0; r < out_regs; ++r) body += fmt::format("  v_accvgpr_write_b32 a{}, v{}\n", r, 20 + r);
  body += fmt::format("  s_nop 2\n  {} {}, v[10:13], v[14:17], {}\n  s_nop 7\n  s_nop 7\n  s_nop 3\n", s.mnemonic, acc, acc);
  for (int r = 0; r < out_regs; ++r) {
    if (s.agpr_accumulator) body += fmt::format("  v_accvgpr_read_b32 v{}, a{}\n", 20 + r, r);
    body += fmt::format("  global_store_dword v3, v{}, s[10:11] offset:{}\n", 20 + r, 256 * r);
  }
  return body + "  s_waitcnt vmcnt(0)\n  s_endpgm\n";
}

struct Matrices {
  std::vector<float> a, b, c;  // row-major M x K, K x N, M x N
};

void check_shape(const Shape& s, const Matrices& mats, bool exact_integers) {
  KernelShape shape;
  shape.vgprs = 64 + 16;
  shape.accum_offset = 64;
  auto k = TestKernel::build(mfma_kernel(s), shape);
  int out_regs = s.m * s.n / 64;
  std::vector<uint32_t> a_img(4 * 64), b_img(4 * 64), c_img(out_regs * 64), d_img(out_regs * 64, 0);
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < 4; ++r) {
      uint32_t lo = to_bf16(mats.a[a_row(l, s) * s.k + ab_k(l, r, 0, s)]);
      uint32_t hi = to_bf16(mats.a[a_row(l, s) * s.k + ab_k(l, r, 1, s)]);
      a_img[r * 64 + l] = lo | (hi << 16);
      lo = to_bf16(mats.b[ab_k(l, r, 0, s) * s.n + l % s.n]);
      hi = to_bf16(mats.b[ab_k(l, r, 1, s) * s.n + l % s.n]);
      b_img[r * 64 + l] = lo | (hi << 16);
    }
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < out_regs; ++r) c_img[r * 64 + l] = bits(mats.c[d_row(l, r, s) * s.n + l % s.n]);
  Args args;
  args.add(a_img);
  args.add(b_img);
  args.add(c_img);
  args.add(d_img);
  auto stats = run(k, args.dispatch(), randomized(11));
  CHECK(stats.races.empty());
  CHECK(stats.mfma_macs == uint64_t(s.m) * s.n * s.k);
  for (int i = 0; i < s.m; ++i)
    for (int j = 0; j < s.n; ++j) {
      float expected = mats.c[i * s.n + j];
      for (int kk = 0; kk < s.k; ++kk) expected = std::fma(mats.a[i * s.k + kk], mats.b[kk * s.n + j], expected);
      if (exact_integers) {
        double exact = mats.c[i * s.n + j];
        for (int kk = 0; kk < s.k; ++kk) exact += double(mats.a[i * s.k + kk]) * mats.b[kk * s.n + j];
        REQUIRE(double(expected) == exact);
      }
      bool found = false;
      for (int l = 0; l < 64 && !found; ++l)
        for (int r = 0; r < out_regs && !found; ++r)
          if (d_row(l, r, s) == i && l % s.n == j) {
            INFO(s.mnemonic << " D[" << i << "][" << j << "] lane " << l << " reg " << r);
            CHECK(d_img[r * 64 + l] == bits(expected));
            found = true;
          }
      REQUIRE(found);
    }
}

const Shape kShapes[] = {{16, 16, 32, "v_mfma_f32_16x16x32_bf16", true},
                         {32, 32, 16, "v_mfma_f32_32x32x16_bf16", false},
                         {16, 16, 32, "v_mfma_f32_16x16x32_bf16", false},
                         {32, 32, 16, "v_mfma_f32_32x32x16_bf16", true}};

}  // namespace

TEST_CASE("MFMA lane layouts: every element of D with distinct inputs, both shapes", "[emulator]") {
  for (const Shape& s : kShapes) {
    // A[i][k] = (1 + k/128) * 2^(i-8): mantissa names k, exponent names i (all distinct, exact bf16).
    // B[k][j] = -(1 + j/128) * 2^(k-16) alternately signed; C[i][j] distinct.
    Matrices m;
    m.a.resize(s.m * s.k);
    m.b.resize(s.k * s.n);
    m.c.resize(s.m * s.n);
    for (int i = 0; i < s.m; ++i)
      for (int kk = 0; kk < s.k; ++kk) m.a[i * s.k + kk] = std::ldexp(1.0f + kk / 128.0f, i - 8);
    for (int kk = 0; kk < s.k; ++kk)
      for (int j = 0; j < s.n; ++j) m.b[kk * s.n + j] = (kk % 2 ? -1.0f : 1.0f) * std::ldexp(1.0f + j / 128.0f, kk - 16);
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) m.c[i * s.n + j] = float(i * s.n + j) * 0.25f;
    INFO("policy-matched reference (" << emu::kMfmaPolicy << "), " << s.mnemonic);
    check_shape(s, m, false);
  }
}

TEST_CASE("MFMA with small-integer data is exact under any summation order", "[emulator]") {
  for (const Shape& s : kShapes) {
    Matrices m;
    m.a.resize(s.m * s.k);
    m.b.resize(s.k * s.n);
    m.c.resize(s.m * s.n);
    for (int i = 0; i < s.m; ++i)
      for (int kk = 0; kk < s.k; ++kk) m.a[i * s.k + kk] = bf16_value(float((i * 7 + kk * 3) % 17 - 8));
    for (int kk = 0; kk < s.k; ++kk)
      for (int j = 0; j < s.n; ++j) m.b[kk * s.n + j] = bf16_value(float((kk * 5 + j * 11) % 13 - 6));
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) m.c[i * s.n + j] = float(i * 100 + j);
    INFO(s.mnemonic);
    check_shape(s, m, true);
  }
}
