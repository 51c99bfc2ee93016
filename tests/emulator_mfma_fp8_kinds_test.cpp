// CDNA3-style fp8 / bf8 MFMAs (v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8} and the
// 32x32x16 ones) on gfx950, whose fp8 is OCP E4M3 (bias 7, S.1111.111 NaN, no
// infinity) and bf8 OCP E5M2 (bias 15, IEEE infinities and NaNs). Layout from the
// generic MFMA rule, written out here: lane l holds A[l % M][8*(l / M) + e] and
// B[8*(l / N) + e][l % N] as byte e of its two dwords; D row 4*(64/N)*(r/4) +
// 4*(l/N) + r%4. Expected values: the fp32-fma-chain-k-order policy, computed here
// from the format definitions.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "emulator_one_mfma.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

struct Kind {
  const char* mnemonic;
  int mn, k;
  bool a_bf8, b_bf8;
};

const Kind kKinds[] = {
    {"v_mfma_f32_16x16x32_fp8_fp8", 16, 32, false, false}, {"v_mfma_f32_16x16x32_fp8_bf8", 16, 32, false, true},
    {"v_mfma_f32_16x16x32_bf8_fp8", 16, 32, true, false},  {"v_mfma_f32_16x16x32_bf8_bf8", 16, 32, true, true},
    {"v_mfma_f32_32x32x16_fp8_fp8", 32, 16, false, false}, {"v_mfma_f32_32x32x16_fp8_bf8", 32, 16, false, true},
    {"v_mfma_f32_32x32x16_bf8_fp8", 32, 16, true, false},  {"v_mfma_f32_32x32x16_bf8_bf8", 32, 16, true, true},
};

// OCP E4M3 / E5M2 by definition.
float decode(bool bf8, uint32_t code) {
  const int mantissa_bits = bf8 ? 2 : 3, bias = bf8 ? 15 : 7;
  const uint32_t e = (code >> mantissa_bits) & (bf8 ? 31 : 15), m = code & ((1u << mantissa_bits) - 1);
  const float sign = code & 0x80 ? -1.0f : 1.0f;
  if (bf8 && e == 31) return m ? std::numeric_limits<float>::quiet_NaN() : sign * INFINITY;
  if (!bf8 && e == 15 && m == 7) return std::numeric_limits<float>::quiet_NaN();
  if (e == 0) return sign * std::ldexp(float(m), 1 - bias - mantissa_bits);
  return sign * std::ldexp(float(m + (1u << mantissa_bits)), int(e) - bias - mantissa_bits);
}

// Finite codes, different for every (x, k).
uint32_t code_at(bool bf8, int x, int k, uint32_t salt) {
  uint32_t c = (uint32_t(x) * 2654435761u + uint32_t(k) * 40503u + salt) >> 7 & 0xff;
  if ((c & 0x7f) >= (bf8 ? 0x7c : 0x7f)) c &= 0xbb;  // no infinity / NaN
  return c;
}

int out_regs(const Kind& s) { return s.mn * s.mn / 64; }
int d_row(const Kind& s, int lane, int reg) { return 4 * (64 / s.mn) * (reg / 4) + 4 * (lane / s.mn) + reg % 4; }

struct Operands {
  std::vector<uint32_t> a, b, c;
};

Operands operands(const Kind& s, uint32_t salt) {
  Operands o{std::vector<uint32_t>(128, 0), std::vector<uint32_t>(128, 0), std::vector<uint32_t>(size_t(out_regs(s)) * 64)};
  for (int l = 0; l < 64; ++l)
    for (int e = 0; e < 8; ++e) {
      const int k = 8 * (l / s.mn) + e;
      o.a[(e / 4) * 64 + l] |= code_at(s.a_bf8, l % s.mn, k, salt) << (8 * (e % 4));
      o.b[(e / 4) * 64 + l] |= code_at(s.b_bf8, l % s.mn, k, salt + 17) << (8 * (e % 4));
    }
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < out_regs(s); ++r) o.c[r * 64 + l] = bits(float(d_row(s, l, r) - l % s.mn) * 0.375f);
  return o;
}

uint32_t expected(const Kind& s, const Operands& o, int i, int j) {
  auto byte = [](const std::vector<uint32_t>& regs, int lane, int e) { return regs[(e / 4) * 64 + lane] >> (8 * (e % 4)) & 0xff; };
  const int kpl = 8;
  float acc = 0;
  for (int l = 0; l < 64; ++l)  // C[i][j] sits in the lane and register the D layout names
    for (int r = 0; r < out_regs(s); ++r)
      if (d_row(s, l, r) == i && l % s.mn == j) acc = f32(o.c[r * 64 + l]);
  for (int k = 0; k < s.k; ++k) {
    const int a_lane = i + s.mn * (k / kpl), b_lane = j + s.mn * (k / kpl);
    acc = std::fma(decode(s.a_bf8, byte(o.a, a_lane, k % kpl)), decode(s.b_bf8, byte(o.b, b_lane, k % kpl)), acc);
  }
  return std::isnan(acc) ? 0xffc00000u : bits(acc);  // every NaN an MFMA writes is the default NaN
}

OneMfma one(const Kind& s) { return {s.mnemonic, 2, 2, out_regs(s)}; }

void check_kind(const Kind& s, const Operands& o) {
  emu::RunStats stats;
  const auto d = run_one_mfma(one(s), o.a, o.b, o.c, {}, randomized(5), &stats);
  INFO(race_text(stats));
  CHECK(stats.races.empty());
  CHECK(stats.mfma_macs == uint64_t(s.mn) * s.mn * s.k);
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < out_regs(s); ++r) {
      const int i = d_row(s, l, r), j = l % s.mn;
      INFO(s.mnemonic << " D[" << i << "][" << j << "]");
      REQUIRE(d[r * 64 + l] == expected(s, o, i, j));
    }
}

}  // namespace

TEST_CASE("fp8 MFMA kinds: every element of D for each type pair and shape", "[emulator][mfma][fp8]") {
  for (const Kind& s : kKinds) check_kind(s, operands(s, 99));
}

TEST_CASE("fp8 MFMA kinds: NaN codes, bf8 infinities and subnormals", "[emulator][mfma][fp8]") {
  for (const Kind& s : {kKinds[1], kKinds[6]}) {
    Operands o = operands(s, 7);
    // Lane 0 holds row 0, k 0..7 of A and column 0 of B: A[0][0] NaN (fp8 0x7f / bf8 0x7e), A[0][1] the smallest subnormal.
    o.a[0] = (o.a[0] & 0xffff0000u) | (s.a_bf8 ? 0x7eu : 0x7fu) | 0x01u << 8;
    // Lane 1, B column 1: B[0][1] = -infinity (bf8 0xfc) when B is bf8, else the largest fp8 (0x7e, 448).
    o.b[1] = (o.b[1] & 0xffffff00u) | (s.b_bf8 ? 0xfcu : 0x7eu);
    const float smallest = s.a_bf8 ? std::ldexp(1.0f, -16) : std::ldexp(1.0f, -9);
    CHECK(decode(s.a_bf8, 0x01) == smallest);
    check_kind(s, o);
    CHECK(expected(s, o, 0, 0) == 0xffc00000u);
    int infinities = 0;
    for (int i = 0; i < s.mn; ++i) infinities += std::isinf(f32(expected(s, o, i, 1)));
    CHECK((infinities > 0) == s.b_bf8);  // B's 448 (fp8) stays finite
  }
}

TEST_CASE("fp8 MFMA kinds: reading the result early is a hazard with 4 / 8 passes", "[emulator][mfma][fp8][hazards]") {
  for (const Kind& s : kKinds) {
    const int last = out_regs(s) - 1, needed = s.mn == 16 ? 8 : 12;  // passes + 4
    auto hazards = [&](int nops) {
      return reports_after(fmt::format("{} v[24:{}], v[8:9], v[16:17], v[24:{}]", s.mnemonic, 24 + last, 24 + last),
                           nops, fmt::format("v_mov_b32 v1, v{}", 24 + last));
    };
    INFO(s.mnemonic);
    CHECK(hazards(needed - 1).find(fmt::format("needs {} wait states", needed)) != std::string::npos);
    CHECK(hazards(needed).empty());
  }
}
