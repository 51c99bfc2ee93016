// The CPU reference for fp8, bf8, fp6, bf6 and fp4: element values, rounding
// into the formats (ties to even, saturation), dense packing, and the scaled
// reference GEMM against an element-wise double computation.
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "cdna4/error.hpp"
#include "cdna4/reference.hpp"
#include "emulator_f8f6f4_kernel.hpp"

using namespace cdna4;
using f8f6f4test::Format;
using f8f6f4test::kFormats;

namespace {

constexpr DataType kTypes[] = {DataType::fp8, DataType::bf8, DataType::fp6, DataType::bf6, DataType::fp4};

DataType type_of(const Format& f) { return kTypes[f.code]; }

uint32_t float_bits(float f) { return std::bit_cast<uint32_t>(f); }

}  // namespace

TEST_CASE("low-precision elements decode as the OCP formats gfx950 implements", "[reference][lowp]") {
  CHECK(decode_element(DataType::fp8, 0x38) == 1.0f);
  CHECK(decode_element(DataType::fp8, 0x7e) == 448.0f);
  CHECK(decode_element(DataType::fp8, 0x01) == std::ldexp(1.0f, -9));
  CHECK(std::isnan(decode_element(DataType::fp8, 0x7f)));
  CHECK(std::isnan(decode_element(DataType::fp8, 0xff)));
  CHECK(float_bits(decode_element(DataType::fp8, 0x80)) == 0x80000000u);
  CHECK(decode_element(DataType::bf8, 0x3c) == 1.0f);
  CHECK(decode_element(DataType::bf8, 0x7b) == 57344.0f);
  CHECK(decode_element(DataType::bf8, 0x01) == std::ldexp(1.0f, -16));
  CHECK(decode_element(DataType::bf8, 0x7c) == std::numeric_limits<float>::infinity());
  CHECK(decode_element(DataType::bf8, 0xfc) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(decode_element(DataType::bf8, 0x7d)));
  CHECK(decode_element(DataType::fp6, 0x08) == 1.0f);
  CHECK(decode_element(DataType::fp6, 0x1f) == 7.5f);
  CHECK(decode_element(DataType::fp6, 0x01) == 0.125f);
  CHECK(decode_element(DataType::fp6, 0x3f) == -7.5f);
  CHECK(decode_element(DataType::bf6, 0x0c) == 1.0f);
  CHECK(decode_element(DataType::bf6, 0x1f) == 28.0f);
  CHECK(decode_element(DataType::bf6, 0x01) == 0.0625f);
  CHECK(decode_element(DataType::fp4, 0x2) == 1.0f);
  CHECK(decode_element(DataType::fp4, 0x7) == 6.0f);
  CHECK(decode_element(DataType::fp4, 0x1) == 0.5f);
  CHECK(decode_element(DataType::fp4, 0xf) == -6.0f);
  for (const Format& f : kFormats)
    for (uint32_t code = 0; code < (1u << f.bits); ++code)
      if (f8f6f4test::finite_code(f, code)) {
        INFO(f.name << " code " << code);
        REQUIRE(double(decode_element(type_of(f), code)) == f8f6f4test::value_of(f, code));
      }
}

TEST_CASE("low-precision encoding rounds to nearest even and round-trips every code", "[reference][lowp]") {
  for (const Format& f : kFormats) {
    const DataType t = type_of(f);
    for (uint32_t code = 0; code < (1u << f.bits); ++code) {
      if (!f8f6f4test::finite_code(f, code)) continue;
      INFO(f.name << " code " << code);
      REQUIRE(encode_element(t, decode_element(t, code)) == code);
      const uint32_t next = code + 1;
      if ((code >> (f.bits - 1)) || next >= (1u << (f.bits - 1)) || !f8f6f4test::finite_code(f, next)) continue;
      const double low = f8f6f4test::value_of(f, code), high = f8f6f4test::value_of(f, next), mid = (low + high) / 2;
      CHECK(encode_element(t, float(mid)) == (code % 2 == 0 ? code : next));
      CHECK(encode_element(t, std::nextafter(float(mid), 0.0f)) == code);
      CHECK(encode_element(t, std::nextafter(float(mid), 1e9f)) == next);
    }
  }
}

TEST_CASE("low-precision encoding saturates fp8 / fp6 / bf6 / fp4 and overflows bf8 to infinity", "[reference][lowp]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(encode_element(DataType::fp8, 464.0f) == 0x7e);  // the tie with 480 (the NaN code) stays at 448
  CHECK(encode_element(DataType::fp8, 470.0f) == 0x7e);
  CHECK(encode_element(DataType::fp8, 1e6f) == 0x7e);
  CHECK(encode_element(DataType::fp8, -inf) == 0xfe);
  CHECK(encode_element(DataType::fp8, nan) == 0x7f);
  CHECK(encode_element(DataType::bf8, 60000.0f) == 0x7b);
  CHECK(encode_element(DataType::bf8, 61440.0f) == 0x7c);  // tie between 57344 and 65536: to even, infinity
  CHECK(encode_element(DataType::bf8, 1e6f) == 0x7c);
  CHECK(encode_element(DataType::bf8, -inf) == 0xfc);
  CHECK(encode_element(DataType::bf8, nan) == 0x7e);
  CHECK(encode_element(DataType::fp6, 8.0f) == 0x1f);
  CHECK(encode_element(DataType::fp6, -inf) == 0x3f);
  CHECK(encode_element(DataType::fp6, nan) == 0x1f);
  CHECK(encode_element(DataType::fp6, 0.0625f) == 0x00);  // half the smallest subnormal: to even, zero
  CHECK(encode_element(DataType::bf6, 30.0f) == 0x1f);
  CHECK(encode_element(DataType::bf6, 1e9f) == 0x1f);
  CHECK(encode_element(DataType::fp4, 5.0f) == 0x6);  // tie between 4 and 6: to even, 4
  CHECK(encode_element(DataType::fp4, 7.0f) == 0x7);
  CHECK(encode_element(DataType::fp4, -100.0f) == 0xf);
  CHECK(encode_element(DataType::fp4, 0.25f) == 0x0);
  CHECK(encode_element(DataType::fp4, -0.0f) == 0x8);
}

TEST_CASE("low-precision packing: little-endian bit strings", "[reference][lowp]") {
  const uint32_t fp6[] = {1, 2, 3, 4};
  CHECK(pack_elements(DataType::fp6, fp6) == std::vector<uint8_t>{0x81, 0x30, 0x10});
  const uint32_t fp4[] = {1, 2, 0xf};
  CHECK(pack_elements(DataType::fp4, fp4) == std::vector<uint8_t>{0x21, 0x0f});
  const uint32_t fp8[] = {0x38, 0xc0};
  CHECK(pack_elements(DataType::fp8, fp8) == std::vector<uint8_t>{0x38, 0xc0});
}

TEST_CASE("scaled reference GEMM equals an element-wise double computation on exact data", "[reference][lowp]") {
  constexpr int M = 5, N = 7, K = 64;
  for (const Format& fa : kFormats)
    for (const Format& fb : kFormats) {
      // Codes whose values are integers in [-12, 12]: every sum is an integer below 2^24.
      auto integer_codes = [](const Format& f) {
        std::vector<uint32_t> codes;
        for (uint32_t c = 0; c < (1u << f.bits); ++c)
          if (f8f6f4test::finite_code(f, c)) {
            const double v = f8f6f4test::value_of(f, c);
            if (v == std::floor(v) && std::fabs(v) <= 12) codes.push_back(c);
          }
        return codes;
      };
      const std::vector<uint32_t> ca = integer_codes(fa), cb = integer_codes(fb);
      std::vector<uint32_t> a(M * K), b(K * N);
      for (int i = 0; i < M * K; ++i) a[i] = ca[(i * 7 + 3) % ca.size()];
      for (int i = 0; i < K * N; ++i) b[i] = cb[(i * 11 + 5) % cb.size()];
      std::vector<uint8_t> sa(M * K / 32), sb(K / 32 * N);
      for (size_t i = 0; i < sa.size(); ++i) sa[i] = uint8_t(127 + i % 3);
      for (size_t i = 0; i < sb.size(); ++i) sb[i] = uint8_t(127 + i % 2);
      const std::vector<float> c = reference_gemm(type_of(fa), pack_elements(type_of(fa), a), type_of(fb),
                                                  pack_elements(type_of(fb), b), M, N, K, sa, sb);
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
          double sum = 0;
          for (int x = 0; x < K; ++x)
            sum += f8f6f4test::value_of(fa, a[i * K + x]) * std::ldexp(1.0, sa[i * (K / 32) + x / 32] - 127) *
                   f8f6f4test::value_of(fb, b[x * N + j]) * std::ldexp(1.0, sb[(x / 32) * N + j] - 127);
          INFO(fa.name << " x " << fb.name << " C[" << i << "][" << j << "]");
          REQUIRE(double(c[i * N + j]) == sum);
        }
    }
}

TEST_CASE("scaled reference GEMM: NaN results are the default NaN, bad arguments are refused", "[reference][lowp]") {
  const std::vector<uint8_t> a(32, 0x38), b(32, 0x38), nan_a = [] {
    std::vector<uint8_t> v(32, 0x38);
    v[3] = 0xff;
    return v;
  }();
  CHECK(reference_gemm(DataType::fp8, a, DataType::fp8, b, 1, 1, 32) == std::vector<float>{32.0f});
  CHECK(float_bits(reference_gemm(DataType::fp8, nan_a, DataType::fp8, b, 1, 1, 32)[0]) == 0xffc00000u);
  const std::vector<uint8_t> nan_scale{255}, one{127};
  CHECK(float_bits(reference_gemm(DataType::fp8, a, DataType::fp8, b, 1, 1, 32, nan_scale, one)[0]) == 0xffc00000u);
  CHECK_THROWS_AS(reference_gemm(DataType::bf16, a, DataType::fp8, b, 1, 1, 32), Error);
  CHECK_THROWS_AS(reference_gemm(DataType::fp8, a, DataType::fp8, b, 1, 1, 33), Error);
  CHECK_THROWS_AS(reference_gemm(DataType::fp8, a, DataType::fp8, b, 1, 1, 16, one, one), Error);
  CHECK_THROWS_AS(reference_gemm(DataType::fp8, a, DataType::fp8, b, 1, 1, 32, std::vector<uint8_t>{1, 2}, one), Error);
}
