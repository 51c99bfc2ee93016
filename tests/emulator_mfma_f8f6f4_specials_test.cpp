// f8f6f4 MFMAs with NaN and infinite elements, NaN scales and scales that take
// elements beyond fp32's range (the policy of docs/emulator.md: exact scaled
// products, one rounding per step, NaN results the default NaN 0xffc00000); and the emulator
// against the CPU reference GEMM on the same matrices.
#include <catch2/catch.hpp>

#include "cdna4/reference.hpp"
#include "emulator_f8f6f4_kernel.hpp"

using namespace cdna4;
using namespace cdna4::f8f6f4test;

namespace {

constexpr uint32_t kNaN = 0xffc00000, kInf = 0x7f800000, kMinusInf = 0xff800000;
constexpr uint32_t kFp8One = 0x38, kFp8Max = 0x7e;  // 1.0, 448

// Finite codes that differ by position, C from position.
Problem plain(const Kind& k, const Format& fa, const Format& fb) {
  Problem p(k, fa, fb);
  auto code = [](const Format& f, int seed) {
    for (uint32_t c = uint32_t(seed * 2654435761u) >> 8;; c += 7)
      if (finite_code(f, c % (1u << f.bits)) && (f.code != 1 || (c >> 2 & 31) < 24)) return c % (1u << f.bits);
  };
  for (size_t i = 0; i < p.a.size(); ++i) p.a[i] = code(fa, int(i) + 1);
  for (size_t i = 0; i < p.b.size(); ++i) p.b[i] = code(fb, int(i) + 100000);
  for (size_t i = 0; i < p.c.size(); ++i) p.c[i] = emutest::bits(float(i % 97) * 0.375f - 12.0f);
  for (size_t i = 0; i < p.scale_a.size(); ++i) p.scale_a[i] = uint8_t(125 + i % 5);
  for (size_t i = 0; i < p.scale_b.size(); ++i) p.scale_b[i] = uint8_t(126 + i % 3);
  return p;
}

// Runs p; D[i][j] must be special(i, j) where that is not 0, else expected_d.
template <class Special>
void check(const Problem& p, Special special) {
  emu::RunStats stats;
  const std::vector<uint32_t> d = run_mfma(p, &stats);
  CHECK(stats.races.empty());
  for (int i = 0; i < p.kind->m; ++i)
    for (int j = 0; j < p.kind->n; ++j) {
      INFO(p.kind->mnemonic << " D[" << i << "][" << j << "]");
      const uint32_t want = special(i, j);
      REQUIRE(d[i * p.kind->n + j] == (want ? want : expected_d(p, i, j)));
    }
}

DataType data_type(const Format& f) {
  constexpr DataType kTypes[] = {DataType::fp8, DataType::bf8, DataType::fp6, DataType::bf6, DataType::fp4};
  return kTypes[f.code];
}

}  // namespace

TEST_CASE("f8f6f4 MFMAs: an fp8 NaN (S.1111.111) makes its row NaN", "[emulator][mfma][f8f6f4]") {
  Problem p = plain(kKinds[0], kFormats[0], kFormats[4]);
  p.a[0 * 128 + 5] = 0x7f;
  p.a[1 * 128 + 100] = 0xff;
  check(p, [](int i, int) { return i < 2 ? kNaN : 0; });
}

TEST_CASE("f8f6f4 MFMAs: bf8 infinities propagate, inf x 0 and inf - inf are NaN", "[emulator][mfma][f8f6f4]") {
  Problem p = plain(kKinds[1], kFormats[1], kFormats[0]);
  for (int j = 0; j < 32; ++j) p.b[0 * 32 + j] = p.b[1 * 32 + j] = j == 3 ? 0 : kFp8One;
  p.a[2 * 64 + 0] = 0x7c;  // +inf
  p.a[3 * 64 + 0] = 0xfc;  // -inf
  p.a[4 * 64 + 0] = 0x7c;
  p.a[4 * 64 + 1] = 0xfc;
  check(p, [](int i, int j) {
    if (i == 2) return j == 3 ? kNaN : kInf;
    if (i == 3) return j == 3 ? kNaN : kMinusInf;
    return i == 4 ? kNaN : 0;
  });
}

TEST_CASE("scaled f8f6f4 MFMAs: a NaN scale (255) makes its row or column NaN", "[emulator][mfma][f8f6f4]") {
  Problem p = plain(kKinds[2], kFormats[2], kFormats[3]);
  p.byte_a = 1;
  p.byte_b = 2;
  p.scale_a[2 * 4 + 1] = 255;   // A row 2, k 32..63
  p.scale_b[0 * 16 + 5] = 255;  // B column 5, k 0..31
  check(p, [](int i, int j) { return i == 2 || j == 5 ? kNaN : 0; });
}

TEST_CASE("scaled f8f6f4 MFMAs: products are exact beyond fp32's range of scaled elements",
          "[emulator][mfma][f8f6f4]") {
  // k 0..31: A row 3 times 2^127, every B column times 2^-127: A[3][k] * B[k][j] exactly.
  // k 32..63: A row 4 = 448 x 2^127, B column 7 = 448 x 2^127: the product overflows.
  Problem p = plain(kKinds[3], kFormats[0], kFormats[0]);
  for (int i = 0; i < 32; ++i)
    for (int x = 0; x < 64; ++x)
      if ((x < 32 && i != 3) || (x >= 32 && i != 4)) p.a[i * 64 + x] = 0;
  for (int x = 32; x < 64; ++x) {
    p.a[4 * 64 + x] = kFp8Max;
    for (int j = 0; j < 32; ++j) p.b[x * 32 + j] = j == 7 ? kFp8Max : 0;
  }
  p.scale_a[3 * 2 + 0] = p.scale_a[4 * 2 + 1] = p.scale_b[1 * 32 + 7] = 254;
  for (int j = 0; j < 32; ++j) p.scale_b[0 * 32 + j] = 0;
  emu::RunStats stats;
  const std::vector<uint32_t> d = run_mfma(p, &stats);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) {
      float acc = emutest::f32(p.c[i * 32 + j]);
      for (int x = 0; x < 64; ++x)
        acc = std::fma(float(value_of(*p.fa, p.a[i * 64 + x])), float(value_of(*p.fb, p.b[x * 32 + j])), acc);
      INFO("D[" << i << "][" << j << "]");
      REQUIRE(d[i * 32 + j] == (i == 4 && j == 7 ? kInf : emutest::bits(acc)));
    }
  CHECK(stats.races.empty());
}

TEST_CASE("f8f6f4 MFMAs equal the CPU reference GEMM on the same matrices", "[emulator][mfma][f8f6f4][reference]") {
  for (const Kind& k : kKinds)
    for (const auto& [fa, fb] : {std::pair{kFormats[0], kFormats[4]},
                                 {kFormats[2], kFormats[1]},
                                 {kFormats[3], kFormats[2]},
                                 {kFormats[4], kFormats[4]}}) {
      Problem p = plain(k, fa, fb);
      std::fill(p.c.begin(), p.c.end(), 0u);
      if (!k.scaled) {
        std::fill(p.scale_a.begin(), p.scale_a.end(), 127);
        std::fill(p.scale_b.begin(), p.scale_b.end(), 127);
      } else {
        p.scale_a[1] = 254;  // row 0, block 1: beyond fp32 for fp8 elements
        p.scale_b[3] = 1;
      }
      const std::vector<float> want = reference_gemm(
          data_type(fa), pack_elements(data_type(fa), p.a), data_type(fb), pack_elements(data_type(fb), p.b), k.m, k.n,
          k.k, k.scaled ? std::span<const uint8_t>(p.scale_a) : std::span<const uint8_t>(),
          k.scaled ? std::span<const uint8_t>(p.scale_b) : std::span<const uint8_t>());
      const std::vector<uint32_t> d = run_mfma(p);
      INFO(k.mnemonic << " A " << fa.name << " B " << fb.name);
      for (int i = 0; i < k.m * k.n; ++i) {
        INFO("D[" << i / k.n << "][" << i % k.n << "]");
        REQUIRE(d[i] == emutest::bits(want[i]));
      }
    }
}
