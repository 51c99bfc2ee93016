// fp32 <-> fp8 / bf8 and fp32 -> u8 conversions. Expected values come from the OCP
// formats' definitions (E4M3: bias 7, S.1111.111 NaN, no infinity; E5M2: IEEE-like,
// bias 15) by searching all codes for the nearest value, ties to the even code,
// and from the CDNA4 ISA guide's pseudocode (op_sel word select, kept bits).
#include <catch2/catch.hpp>

#include <cmath>

#include "emulator_lane_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

struct F8 {
  int exponent_bits, mantissa_bits;
  bool ieee;  // exponent all ones: infinity / NaN (E5M2); otherwise only S.1111.111 is NaN (E4M3)
  int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  bool is_nan(uint32_t c) const {
    const uint32_t mag = c & 0x7f, top = uint32_t((1 << exponent_bits) - 1);
    return ieee ? (mag >> mantissa_bits) == top && (mag & ((1u << mantissa_bits) - 1)) : mag == 0x7f;
  }
  bool is_inf(uint32_t c) const { return ieee && (c & 0x7f) == uint32_t(((1 << exponent_bits) - 1) << mantissa_bits); }
  double value(uint32_t c) const {
    if (is_nan(c)) return NAN;
    const double s = (c & 0x80) ? -1.0 : 1.0;
    if (is_inf(c)) return s * INFINITY;
    const uint32_t e = (c & 0x7f) >> mantissa_bits, m = c & ((1u << mantissa_bits) - 1);
    if (e == 0) return s * std::ldexp(double(m), 1 - bias() - mantissa_bits);
    return s * std::ldexp(double(m | (1u << mantissa_bits)), int(e) - bias() - mantissa_bits);
  }
  uint32_t largest() const {
    uint32_t best = 0;
    for (uint32_t c = 0; c < 0x80; ++c)
      if (!is_nan(c) && !is_inf(c) && value(c) > value(best)) best = c;
    return best;
  }
  // Nearest finite code by value, ties to the even code; beyond the largest finite
  // value by more than half its spacing to the next binade step: overflow.
  uint32_t convert(float x, bool saturate) const {
    const uint32_t sign = std::signbit(x) ? 0x80 : 0;
    const uint32_t overflow = ieee ? uint32_t(((1 << exponent_bits) - 1) << mantissa_bits) : 0x7fu;
    if (std::isinf(x)) return sign | overflow;
    const double a = std::fabs(double(x)), top = value(largest());
    const double step = top - value(largest() - 1);
    if (a > top + step / 2 || (a == top + step / 2 && (largest() & 1))) return sign | (saturate ? largest() : overflow);
    uint32_t best = 0;
    for (uint32_t c = 1; c <= largest(); ++c) {
      const double d = std::fabs(value(c) - a), e = std::fabs(value(best) - a);
      if (d < e || (d == e && (c & 1) == 0)) best = c;
    }
    return sign | best;
  }
};
constexpr F8 kFp8{4, 3, false};
constexpr F8 kBf8{5, 2, true};

// Values around every binade of both formats, ties, overflow thresholds, specials.
float sample(uint32_t lane, uint32_t salt) {
  static const float specials[] = {0.0f,    -0.0f,     448.0f,   464.0f,  465.0f,   480.0f,  -500.0f,  57344.0f,
                                   61440.0f, 61439.0f, 1e6f,     INFINITY, -INFINITY, 0x1p-9f, 0x1p-10f, 0x1.8p-10f,
                                   0x1p-16f, 0x1p-17f, 0x1.4p-17f, 1.0625f, 1.1875f,  -2.25f,  0.3f,     1e-30f};
  const uint32_t k = lane * 7 + salt * 13;
  if (k % 3 == 0) return specials[(k / 3) % std::size(specials)];
  const float m = 1.0f + float(k % 32) / 32.0f + (k % 5 == 0 ? 1.0f / 64.0f : 0.0f);
  return std::ldexp(k % 2 ? -m : m, int(k % 36) - 20);
}

}  // namespace

TEST_CASE("v_cvt_pk_fp8_f32 / v_cvt_pk_bf8_f32 round to nearest even into the op_sel word", "[emulator][valu]") {
  for (bool saturate : {false, true}) {
    KernelShape shape;
    shape.descriptor = fmt::format("  .amdhsa_fp16_overflow {}\n", int(saturate));
    for (uint32_t salt = 0; salt < 4; ++salt) {
      const std::string body =
          "  v_mov_b32 v20, v12\n  v_mov_b32 v21, v12\n  v_mov_b32 v22, v12\n  v_mov_b32 v23, v12\n"
          "  v_cvt_pk_fp8_f32 v20, v10, v11\n  v_cvt_pk_fp8_f32 v21, -v10, |v11| op_sel:[0,0,1]\n"
          "  v_cvt_pk_bf8_f32 v22, v10, v11\n  v_cvt_pk_bf8_f32 v23, v10, -v11 op_sel:[0,0,1]\n"
          "  v_mov_b32 v24, v12\n  s_mov_b32 exec_lo, 0xf0f0f0f0\n  s_mov_b32 exec_hi, 0xf0f0f0f0\n  v_cvt_pk_fp8_f32 v24, v10, v11\n"
          "  s_mov_b64 exec, -1\n";
      const auto a = [=](uint32_t l) { return bits(sample(l, salt)); };
      const auto b = [=](uint32_t l) { return bits(sample(l + 29, salt + 1)); };
      const auto old = [](uint32_t l) { return pattern(l, 4); };
      const auto out = run_lanes(body, {a, b, old}, {20, 21, 22, 23, 24}, shape);
      for (uint32_t l = 0; l < 64; ++l) {
        const float x = f32(a(l)), y = f32(b(l));
        INFO("saturate " << saturate << " x = " << x << " y = " << y);
        const uint32_t fp8 = kFp8.convert(x, saturate) | kFp8.convert(y, saturate) << 8;
        const uint32_t fp8_mod = kFp8.convert(-x, saturate) | kFp8.convert(std::fabs(y), saturate) << 8;
        const uint32_t bf8 = kBf8.convert(x, saturate) | kBf8.convert(y, saturate) << 8;
        const uint32_t bf8_neg = kBf8.convert(x, saturate) | kBf8.convert(-y, saturate) << 8;
        REQUIRE(out[0][l] == ((old(l) & 0xffff0000u) | fp8));
        REQUIRE(out[1][l] == ((old(l) & 0xffffu) | fp8_mod << 16));
        REQUIRE(out[2][l] == ((old(l) & 0xffff0000u) | bf8));
        REQUIRE(out[3][l] == ((old(l) & 0xffffu) | bf8_neg << 16));
        REQUIRE(out[4][l] == (((0xf0f0f0f0f0f0f0f0ull >> l) & 1) ? (old(l) & 0xffff0000u) | fp8 : old(l)));
      }
    }
  }
}

TEST_CASE("v_cvt_pk_fp8_f32 keeps NaN a NaN and turns infinity into fp8's NaN", "[emulator][valu]") {
  const auto a = [](uint32_t l) { return l % 2 ? 0x7fc00000u : 0xff800000u; };
  const auto b = [](uint32_t l) { return l % 2 ? 0x7f800000u : 0xffc00000u; };
  const auto out = run_lanes("  v_cvt_pk_fp8_f32 v20, v10, v11\n  v_cvt_pk_bf8_f32 v21, v10, v11\n", {a, b}, {20, 21});
  for (uint32_t l = 0; l < 64; ++l) {
    REQUIRE(kFp8.is_nan(out[0][l] & 0xff));
    REQUIRE(kFp8.is_nan(out[0][l] >> 8 & 0xff));
    REQUIRE(kBf8.is_nan((out[1][l] >> (l % 2 ? 0 : 8)) & 0xff));
    REQUIRE(((out[1][l] >> (l % 2 ? 8 : 0)) & 0xff) == (l % 2 ? 0x7cu : 0xfcu));  // the infinity keeps its sign
  }
}

TEST_CASE("v_cvt_f32_fp8 / bf8 read byte 0; v_cvt_pk_f32_fp8 / bf8 bytes 0 and 1", "[emulator][valu]") {
  for (uint32_t chunk = 0; chunk < 4; ++chunk) {
    const auto code = [=](uint32_t l) { return (chunk * 64 + l) | pattern(l, chunk) << 8; };
    const std::string body =
        "  v_cvt_f32_fp8 v20, v10\n  v_cvt_f32_bf8_e64 v21, v10\n"
        "  v_cvt_pk_f32_fp8 v[22:23], v10\n  v_cvt_pk_f32_bf8_e64 v[24:25], v10\n";
    const auto out = run_lanes(body, {code}, {20, 21, 22, 23, 24, 25});
    for (uint32_t l = 0; l < 64; ++l) {
      const uint32_t c = code(l), b0 = c & 0xff, b1 = c >> 8 & 0xff;
      INFO("code 0x" << std::hex << c);
      auto same = [](uint32_t got, double expected) {
        return std::isnan(expected) ? std::isnan(f32(got)) : got == bits(float(expected));
      };
      REQUIRE(same(out[0][l], kFp8.value(b0)));
      REQUIRE(same(out[1][l], kBf8.value(b0)));
      REQUIRE(same(out[2][l], kFp8.value(b0)));
      REQUIRE(same(out[3][l], kFp8.value(b1)));
      REQUIRE(same(out[4][l], kBf8.value(b0)));
      REQUIRE(same(out[5][l], kBf8.value(b1)));
    }
  }
}

TEST_CASE("v_cvt_pk_u8_f32 rounds to nearest even, saturates and replaces the selected byte", "[emulator][valu]") {
  const float values[] = {0.5f, 1.5f, 2.5f, 3.49f, 254.5f, 255.0f, 255.7f, 300.0f, -1.0f, -0.0f, NAN, INFINITY,
                          -INFINITY, 17.25f, 128.5f, 1e-30f};
  const auto x = [&](uint32_t l) { return bits(values[l % std::size(values)]); };
  const auto select = [](uint32_t l) { return (l / 16) | pattern(l, 1) << 2; };  // only bits 1:0 select
  const auto base = [](uint32_t l) { return pattern(l, 2); };
  const auto out = run_lanes("  v_cvt_pk_u8_f32 v20, v10, v11, v12\n  v_cvt_pk_u8_f32 v21, -v10, 2, v12\n",
                             {x, select, base}, {20, 21});
  for (uint32_t l = 0; l < 64; ++l) {
    auto u8 = [](float f) -> uint32_t {
      if (!(f > 0)) return 0;  // NaN, zeros and negatives
      if (f >= 255.0f) return 255;
      const float down = std::floor(f), frac = f - down;
      const uint32_t d = uint32_t(down);
      return frac > 0.5f || (frac == 0.5f && d % 2 == 1) ? d + 1 : d;
    };
    const float f = f32(x(l));
    const uint32_t shift = 8 * (select(l) & 3);
    INFO("x = " << f << " byte " << shift / 8);
    REQUIRE(out[0][l] == ((base(l) & ~(0xffu << shift)) | u8(f) << shift));
    REQUIRE(out[1][l] == ((base(l) & ~0xff0000u) | u8(-f) << 16));
  }
}

TEST_CASE("v_cvt_f32_ubyte0..3 give the selected byte as an unsigned float", "[emulator][valu]") {
  const std::string body =
      "  s_mov_b32 s9, 0x125a3456\n  v_cvt_f32_ubyte0 v20, v10\n  v_cvt_f32_ubyte1 v21, v10\n  v_cvt_f32_ubyte2 v22, v10\n"
      "  v_cvt_f32_ubyte3 v23, v10\n  v_cvt_f32_ubyte2_e64 v24, s9\n";
  const auto a = [](uint32_t l) { return l == 0 ? 0xffffffffu : l == 1 ? 0u : pattern(l, 4); };
  const auto out = run_lanes(body, {a}, {20, 21, 22, 23, 24});
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    for (int byte = 0; byte < 4; ++byte) REQUIRE(f32(out[byte][l]) == float((a(l) >> (8 * byte)) & 0xff));
    REQUIRE(f32(out[4][l]) == float(0x5a));  // byte 2 of s9
  }
}
