// VOP3 v_min3 / v_max3 / v_med3 (f32, f16, i32, u32). Expected values follow the
// CDNA4 ISA guide's pseudocode, transcribed here: V_MAX_F32 / V_MIN_F32 (IEEE mode:
// a signalling NaN source is returned quieted; else a NaN gives the other operand;
// +0 beats -0), max3 = max(max(S0, S1), S2), med3 via max3 with min3 for NaNs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>

#include "emulator_lane_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

// One float format on raw bits for the reference.
struct Format {
  uint32_t sign, quiet, exponent_mask, mantissa_mask;
  double value(uint32_t b) const {
    const int mant_bits = std::popcount(mantissa_mask), exp_bits = std::popcount(exponent_mask);
    const int bias = (1 << (exp_bits - 1)) - 1;
    const uint32_t e = (b & exponent_mask) >> mant_bits, m = b & mantissa_mask;
    const double s = (b & sign) ? -1.0 : 1.0;
    if (e == (exponent_mask >> mant_bits)) return m ? NAN : s * INFINITY;
    if (e == 0) return s * std::ldexp(double(m), 1 - bias - mant_bits);
    return s * std::ldexp(double(m | (mantissa_mask + 1)), int(e) - bias - mant_bits);
  }
  bool nan(uint32_t b) const { return std::isnan(value(b)); }
  bool signal(uint32_t b) const { return nan(b) && !(b & quiet); }
};
constexpr Format kF32{0x80000000u, 0x400000u, 0x7f800000u, 0x7fffffu};
constexpr Format kF16{0x8000u, 0x200u, 0x7c00u, 0x3ffu};

uint32_t isa_max(const Format& f, uint32_t s0, uint32_t s1, bool ieee) {
  if (ieee && f.signal(s0)) return s0 | f.quiet;
  if (ieee && f.signal(s1)) return s1 | f.quiet;
  if (f.nan(s0)) return s1;
  if (f.nan(s1)) return s0;
  if (s0 == 0 && s1 == f.sign) return s0;
  if (s0 == f.sign && s1 == 0) return s1;
  return f.value(s0) >= f.value(s1) ? s0 : s1;
}
uint32_t isa_min(const Format& f, uint32_t s0, uint32_t s1, bool ieee) {
  if (ieee && f.signal(s0)) return s0 | f.quiet;
  if (ieee && f.signal(s1)) return s1 | f.quiet;
  if (f.nan(s0)) return s1;
  if (f.nan(s1)) return s0;
  if (s0 == 0 && s1 == f.sign) return s1;
  if (s0 == f.sign && s1 == 0) return s0;
  return f.value(s0) < f.value(s1) ? s0 : s1;
}
uint32_t isa_max3(const Format& f, uint32_t a, uint32_t b, uint32_t c, bool ieee) {
  return isa_max(f, isa_max(f, a, b, ieee), c, ieee);
}
uint32_t isa_min3(const Format& f, uint32_t a, uint32_t b, uint32_t c, bool ieee) {
  return isa_min(f, isa_min(f, a, b, ieee), c, ieee);
}
uint32_t isa_med3(const Format& f, uint32_t a, uint32_t b, uint32_t c, bool ieee) {
  if (f.nan(a) || f.nan(b) || f.nan(c)) return isa_min3(f, a, b, c, ieee);
  const double m = f.value(isa_max3(f, a, b, c, ieee));
  if (m == f.value(a)) return isa_max(f, b, c, ieee);
  if (m == f.value(b)) return isa_max(f, a, c, ieee);
  return isa_max(f, a, b, ieee);
}

// qNaN, sNaN, +0, -0, 1, -1, 2.5, -inf, +inf, smallest denormal, largest finite, -3.
constexpr uint32_t kF32Values[] = {0x7fc00000, 0x7fa00000, 0x00000000, 0x80000000, 0x3f800000, 0xbf800000,
                                   0x40200000, 0xff800000, 0x7f800000, 0x00000001, 0x7f7fffff, 0xc0400000};
constexpr uint32_t kF16Values[] = {0x7e00, 0x7d00, 0x0000, 0x8000, 0x3c00, 0xbc00,
                                   0x4100, 0xfc00, 0x7c00, 0x0001, 0x7bff, 0xc200};
constexpr uint32_t kCount = std::size(kF32Values);

// Combination i of three values (all 12^3 of them across the chunks).
uint32_t pick(const uint32_t* values, uint32_t combination, int source) {
  for (int s = 0; s < source; ++s) combination /= kCount;
  return values[combination % kCount];
}

KernelShape ieee_shape(bool ieee) {
  KernelShape shape;
  shape.descriptor = fmt::format("  .amdhsa_ieee_mode {}\n", int(ieee));
  return shape;
}

}  // namespace

TEST_CASE("v_max_f32 / v_min_f32 follow the ISA's NaN, signalling NaN and signed zero rules", "[emulator][valu]") {
  const std::string body =
      "  v_max_f32 v20, v10, v11\n  v_min_f32 v21, v10, v11\n  v_max_f32_e64 v22, -v10, v11 clamp\n";
  for (bool ieee : {true, false})
    for (uint32_t chunk = 0; chunk * 64 < kCount * kCount; ++chunk) {
      LaneFn in[2];
      for (int s = 0; s < 2; ++s) in[s] = [=](uint32_t l) { return pick(kF32Values, (chunk * 64 + l) % (kCount * kCount), s); };
      const auto out = run_lanes(body, {in[0], in[1]}, {20, 21, 22}, ieee_shape(ieee));
      for (uint32_t l = 0; l < 64; ++l) {
        const uint32_t a = in[0](l), b = in[1](l);
        INFO("ieee " << ieee << " sources 0x" << std::hex << a << " 0x" << b);
        REQUIRE(out[0][l] == isa_max(kF32, a, b, ieee));
        REQUIRE(out[1][l] == isa_min(kF32, a, b, ieee));
        const uint32_t m = isa_max(kF32, a ^ 0x80000000u, b, ieee);
        const float clamped = std::isnan(f32(m)) ? 0.0f : std::fmin(std::fmax(f32(m), 0.0f), 1.0f);
        REQUIRE(out[2][l] == bits(clamped));
      }
    }
}

TEST_CASE("v_max3/min3/med3_f32 follow the ISA's NaN, signalling NaN and signed zero rules", "[emulator][valu]") {
  const std::string body =
      "  v_max3_f32 v20, v10, v11, v12\n  v_min3_f32 v21, v10, v11, v12\n  v_med3_f32 v22, v10, v11, v12\n";
  for (bool ieee : {true, false}) {
    for (uint32_t chunk = 0; chunk * 64 < kCount * kCount * kCount; ++chunk) {
      LaneFn in[3];
      for (int s = 0; s < 3; ++s) in[s] = [=](uint32_t l) { return pick(kF32Values, (chunk * 64 + l) % (kCount * kCount * kCount), s); };
      const auto out = run_lanes(body, {in[0], in[1], in[2]}, {20, 21, 22}, ieee_shape(ieee));
      for (uint32_t l = 0; l < 64; ++l) {
        const uint32_t a = in[0](l), b = in[1](l), c = in[2](l);
        INFO("ieee " << ieee << " sources 0x" << std::hex << a << " 0x" << b << " 0x" << c);
        REQUIRE(out[0][l] == isa_max3(kF32, a, b, c, ieee));
        REQUIRE(out[1][l] == isa_min3(kF32, a, b, c, ieee));
        REQUIRE(out[2][l] == isa_med3(kF32, a, b, c, ieee));
      }
    }
  }
}

TEST_CASE("v_med3_f32 as a clamp, with source modifiers, clamp and an EXEC mask", "[emulator][valu]") {
  // x clamped to [-8, 7] (clang's fptosi.sat idiom), -|x|, clamp to [0, 1], and lanes off.
  const std::string body =
      "  s_mov_b32 s9, 0xc1000000\n  v_mov_b32 v30, 0x40e00000\n  v_med3_f32 v20, v10, s9, v30\n"
      "  v_max3_f32 v21, -v10, |v11|, v12 clamp\n"
      "  v_mov_b32 v22, 0x1234\n  s_mov_b32 exec_lo, 0x00ff00ff\n  s_mov_b32 exec_hi, 0x00ff00ff\n  v_min3_f32 v22, v10, v11, 0.5\n"
      "  s_mov_b64 exec, -1\n";
  const auto x = [](uint32_t l) { return bits(float(int(l) - 32) * 0.37f); };
  const auto y = [](uint32_t l) { return bits(float(int(l % 7) - 3) * 0.3f); };
  const auto z = [](uint32_t l) { return l % 5 == 0 ? 0x7fc00000u : bits(float(l) / 64.0f); };
  const auto out = run_lanes(body, {x, y, z}, {20, 21, 22});
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    REQUIRE(out[0][l] == isa_med3(kF32, x(l), bits(-8.0f), bits(7.0f), true));
    const uint32_t m = isa_max3(kF32, x(l) ^ 0x80000000u, y(l) & 0x7fffffffu, z(l), true);
    const float clamped = std::isnan(f32(m)) ? 0.0f : std::fmin(std::fmax(f32(m), 0.0f), 1.0f);
    REQUIRE(out[1][l] == bits(clamped));
    const bool active = (0x00ff00ff00ff00ffull >> l) & 1;
    REQUIRE(out[2][l] == (active ? isa_min3(kF32, x(l), y(l), bits(0.5f), true) : 0x1234u));
  }
}

TEST_CASE("v_max3/min3/med3_f16 select halves with op_sel and keep the other destination half", "[emulator][valu]") {
  struct Case {
    const char* op;
    int op_sel[4];  // src0, src1, src2, dst
    bool neg0;
  };
  const Case cases[] = {{"max3", {0, 0, 0, 0}, false}, {"min3", {1, 0, 1, 1}, false}, {"med3", {0, 1, 0, 0}, true},
                        {"med3", {1, 1, 1, 1}, false}, {"max3", {1, 0, 0, 1}, true},  {"min3", {0, 0, 0, 0}, false}};
  std::string body;
  std::vector<int> outputs;
  for (size_t i = 0; i < std::size(cases); ++i) {
    const Case& c = cases[i];
    body += fmt::format("  v_mov_b32 v{}, v13\n", 20 + i);
    body += fmt::format("  v_{}_f16 v{}, {}v10, v11, v12 op_sel:[{},{},{},{}]\n", c.op, 20 + i, c.neg0 ? "-" : "",
                        c.op_sel[0], c.op_sel[1], c.op_sel[2], c.op_sel[3]);
    outputs.push_back(int(20 + i));
  }
  for (uint32_t chunk = 0; chunk * 64 < kCount * kCount * kCount; chunk += 5) {
    LaneFn in[4];
    for (int s = 0; s < 3; ++s)
      in[s] = [=](uint32_t l) {
        const uint32_t k = (chunk * 64 + l) % (kCount * kCount * kCount);
        return pick(kF16Values, k, s) | pick(kF16Values, (k * 7 + 5) % (kCount * kCount * kCount), s) << 16;
      };
    in[3] = [](uint32_t l) { return pattern(l, 9); };
    const auto out = run_lanes(body, {in[0], in[1], in[2], in[3]}, outputs);
    for (size_t i = 0; i < std::size(cases); ++i)
      for (uint32_t l = 0; l < 64; ++l) {
        const Case& c = cases[i];
        auto half = [&](int s) { return c.op_sel[s] ? in[s](l) >> 16 : in[s](l) & 0xffff; };
        const uint32_t a = half(0) ^ (c.neg0 ? 0x8000u : 0u), b = half(1), d = half(2);
        const std::string op = c.op;
        const uint32_t v = op == "max3" ? isa_max3(kF16, a, b, d, true)
                           : op == "min3" ? isa_min3(kF16, a, b, d, true)
                                          : isa_med3(kF16, a, b, d, true);
        const uint32_t old = in[3](l);
        const uint32_t expected = c.op_sel[3] ? (old & 0xffff) | (v << 16) : (old & 0xffff0000u) | v;
        INFO("case " << i << " lane " << l << std::hex << " sources 0x" << a << " 0x" << b << " 0x" << d);
        REQUIRE(out[i][l] == expected);
      }
  }
}

TEST_CASE("v_max3/min3/med3 on i32 and u32 order signed and unsigned", "[emulator][valu]") {
  const std::string body =
      "  v_max3_i32 v20, v10, v11, v12\n  v_min3_i32 v21, v10, v11, v12\n  v_med3_i32 v22, v10, v11, v12\n"
      "  v_max3_u32 v23, v10, v11, v12\n  v_min3_u32 v24, v10, v11, v12\n  v_med3_u32 v25, v10, v11, v12\n"
      "  v_med3_i32 v26, v10, -4, 60\n";
  const uint32_t specials[] = {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 5, 0xfffffffbu, 5};
  const auto a = [&](uint32_t l) { return l < 32 ? specials[l % 8] : pattern(l, 1); };
  const auto b = [&](uint32_t l) { return l < 32 ? specials[(l / 8) % 8] : pattern(l, 2) >> (l % 3 * 8); };
  const auto c = [&](uint32_t l) { return l < 32 ? specials[(l + 3) % 8] : (l % 4 == 0 ? a(l) : pattern(l, 3)); };
  const auto out = run_lanes(body, {a, b, c}, {20, 21, 22, 23, 24, 25, 26});
  for (uint32_t l = 0; l < 64; ++l) {
    const int32_t x = int32_t(a(l)), y = int32_t(b(l)), z = int32_t(c(l));
    const uint32_t ux = a(l), uy = b(l), uz = c(l);
    // The median is the value that is neither the unique largest nor the unique smallest: sort.
    int32_t s[3] = {x, y, z};
    std::sort(s, s + 3);
    uint32_t u[3] = {ux, uy, uz};
    std::sort(u, u + 3);
    INFO("lane " << l);
    REQUIRE(int32_t(out[0][l]) == s[2]);
    REQUIRE(int32_t(out[1][l]) == s[0]);
    REQUIRE(int32_t(out[2][l]) == s[1]);
    REQUIRE(out[3][l] == u[2]);
    REQUIRE(out[4][l] == u[0]);
    REQUIRE(out[5][l] == u[1]);
    REQUIRE(int32_t(out[6][l]) == std::clamp(x, -4, 60));
  }
}
