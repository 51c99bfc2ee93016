// The cdna3-fused-groups MFMA policy (MMA-Sim's CDNA3 algorithm, arXiv:2511.10909):
// its documented properties on hand-made groups, random groups against a
// straightforward long-double rendering of the published description written
// here, one MFMA of each covered kind on the emulator against that rendering, and
// whole GEMMs on the emulator against the CPU reference under the same policy.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "cdna4/gemm.hpp"
#include "cdna4/reference.hpp"
#include "common/mfma_fused_groups.hpp"
#include "emulator_one_mfma.hpp"
#include "gemm_support.hpp"
#include "schedule_test_support.hpp"

using namespace cdna4;
using namespace cdna4::emutest;
using gfx950::Element;

namespace {

// ---- The description, in long double ---------------------------------------

struct Type {
  DataType type;
  int min_exponent;  // smallest normal exponent: 1 - bias
  bool eight_bit;
};
const Type kBf16{DataType::bf16, -126, false}, kF16{DataType::f16, -14, false}, kFp8{DataType::fp8, -6, true},
    kBf8{DataType::bf8, -14, true};

struct Part {
  long double sig;  // |sig| < 2 (a product's: < 4)
  int e;
};

Part part_of(long double x, int min_exponent) {
  if (x == 0) return {0, -126};
  const int e = std::max(int(std::ilogb(x)), min_exponent);
  return {x / std::ldexp(1.0L, e), e};
}

// Products aligned to their largest exponent, each cut toward zero to 24 fraction bits there.
Part aligned_sum(const std::vector<Part>& p) {
  int e = -100000;
  for (const Part& x : p) e = std::max(e, x.e);
  long double s = 0;
  for (const Part& x : p) s += std::trunc(std::ldexp(x.sig, 24 + x.e - e)) / (1 << 24);
  return {s, e};
}

long double floor_to(long double sig, int shift, int fraction_bits) {
  return std::floor(std::ldexp(sig, fraction_bits + shift)) / std::ldexp(1.0L, fraction_bits);
}

float described_group(const std::vector<float>& a, const std::vector<float>& b, Type ta, Type tb, float c) {
  long double ieee = c;
  for (size_t i = 0; i < a.size(); ++i) ieee += (long double)a[i] * b[i];
  if (std::isnan(ieee)) return std::bit_cast<float>(0xffc00000u);
  if (std::isinf(ieee)) return float(ieee);
  bool up = false, down = false;
  for (size_t i = 0; i < a.size(); ++i) {
    const long double p = (long double)a[i] * b[i];
    up = up || p >= std::ldexp(1.0L, 128);
    down = down || p <= -std::ldexp(1.0L, 128);
  }
  if (up && down) return std::bit_cast<float>(0xffc00000u);
  if (up || down) return up ? INFINITY : -INFINITY;
  std::vector<Part> even, odd, all;
  for (size_t i = 0; i < a.size(); ++i) {
    const Part x = part_of(a[i], ta.min_exponent), y = part_of(b[i], tb.min_exponent);
    const Part p{x.sig * y.sig, x.e + y.e};
    all.push_back(p);
    (i % 2 ? odd : even).push_back(p);
  }
  Part s;
  if (ta.eight_bit) {
    const Part s0 = aligned_sum(even), s1 = aligned_sum(odd);
    s.e = std::max(s0.e, s1.e);
    s.sig = floor_to(s0.sig, s0.e - s.e, 24) + floor_to(s1.sig, s1.e - s.e, 24);
  } else {
    s = aligned_sum(all);
  }
  const Part cp = part_of(c, -126);
  const int e = std::max(s.e, cp.e);
  const long double sum = floor_to(s.sig, s.e - e, 31);
  const long double acc = ta.eight_bit && cp.e < e - 25 ? 0.0L : floor_to(cp.sig, cp.e - e, 24);
  return float(std::ldexp(sum + acc, e));
}

Element element_of(const Type& t) {
  switch (t.type) {
    case DataType::bf16: return Element::bf16;
    case DataType::f16: return Element::f16;
    case DataType::fp8: return Element::fp8;
    default: return Element::bf8;
  }
}

float step(const std::vector<float>& a, const std::vector<float>& b, Type ta, Type tb, float c) {
  return gfx950::fused_group_step(a.data(), b.data(), int(a.size()), element_of(ta), element_of(tb), c);
}

uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }

// ---- Random data ------------------------------------------------------------

// A finite element of `t` from its encodings, biased toward wide exponent spreads.
float random_element(const Type& t, std::mt19937& rng) {
  const int width = t.eight_bit ? 8 : 16;
  for (;;) {
    const uint32_t code = rng() & ((1u << width) - 1);
    const float v = decode_element(t.type, code);
    if (std::isfinite(v) && (t.type != DataType::bf16 || std::fabs(v) < 1e18f || rng() % 64 == 0)) return v;
  }
}

float random_accumulator(std::mt19937& rng) {
  switch (rng() % 6) {
    case 0: return 0.0f;
    case 1: return std::ldexp(float(int(rng() % 2001) - 1000), -int(rng() % 300));  // down to subnormals
    default: {
      const float sig = 1.0f + float(rng() % (1u << 23)) / float(1u << 23);
      return (rng() % 2 ? -1.0f : 1.0f) * std::ldexp(sig, int(rng() % 60) - 40);
    }
  }
}

struct Pair {
  Type a, b;
  const char* what;
};
const Pair kPairs[] = {{kBf16, kBf16, "bf16"}, {kF16, kF16, "f16"}, {kFp8, kFp8, "fp8 x fp8"},
                       {kFp8, kBf8, "fp8 x bf8"}, {kBf8, kFp8, "bf8 x fp8"}, {kBf8, kBf8, "bf8 x bf8"}};

}  // namespace

TEST_CASE("cdna3-fused-groups: a tiny positive product next to C = 1.0 is lost, a tiny negative one is not",
          "[mfma][policy]") {
  // 2^-24 = half an ulp of 1.0: the tie rounds to even.
  const float tiny = std::ldexp(1.0f, -24), half_ulp = std::ldexp(1.0f, -12);
  // C = 1: 1 + 2^-24 + 2^-48 rounds up when added exactly; the group rounds its sum down to 2^-24: a tie, 1.0.
  CHECK(step({half_ulp, tiny, 0, 0, 0, 0, 0, 0}, {half_ulp, tiny, 0, 0, 0, 0, 0, 0}, kBf16, kBf16, 1.0f) == 1.0f);
  CHECK(float(1.0L + std::ldexp(1.0L, -24) + std::ldexp(1.0L, -48)) == 1.0f + 2 * tiny);
  // C = 1 + 2^-23 (odd): the tie alone goes up to 1 + 2^-22; a tiny negative product pulls it below the tie.
  const float odd = 1.0f + 2 * tiny;
  CHECK(step({half_ulp, 0, 0, 0, 0, 0, 0, 0}, {half_ulp, 0, 0, 0, 0, 0, 0, 0}, kBf16, kBf16, odd) == 1.0f + 4 * tiny);
  CHECK(step({half_ulp, -tiny, 0, 0, 0, 0, 0, 0}, {half_ulp, tiny, 0, 0, 0, 0, 0, 0}, kBf16, kBf16, odd) == odd);
}

TEST_CASE("cdna3-fused-groups: products far below the group's largest are truncated per group", "[mfma][policy]") {
  // 1 and seven products of 2^-25 (2^-12 x 2^-13): in one group the small ones fall below
  // 24 fraction bits of 2^0 and vanish; in the next group they keep their own alignment.
  const float small_a = std::ldexp(1.0f, -12), small_b = std::ldexp(1.0f, -13);
  auto gemm = [&](int first_small) {
    std::vector<uint32_t> a(16, 0), b(16, 0);
    a[0] = encode_element(DataType::bf16, 1.0f);
    b[0] = a[0];
    for (int x = 0; x < 7; ++x) {
      a[size_t(first_small + x)] = encode_element(DataType::bf16, small_a);
      b[size_t(first_small + x)] = encode_element(DataType::bf16, small_b);
    }
    return reference_gemm(MfmaPolicy::cdna3_fused_groups, DataType::bf16, pack_elements(DataType::bf16, a),
                          DataType::bf16, pack_elements(DataType::bf16, b), 1, 1, 16)[0];
  };
  CHECK(gemm(1) == 1.0f);
  CHECK(gemm(8) == 1.0f + std::ldexp(1.0f, -22));  // 1 + 7 x 2^-25, nearest even
}

TEST_CASE("cdna3-fused-groups: 8-bit groups add their even and odd k apart, and drop a far smaller C",
          "[mfma][policy]") {
  const float tiny = std::ldexp(1.0f, -16);  // bf8's smallest subnormal
  std::vector<float> a(16, 0.0f), b(16, 0.0f);
  a[0] = b[0] = 1.0f;
  a[1] = -tiny;
  b[1] = tiny;
  // Odd half: -2^-32 rounded toward -infinity at 24 bits of 2^0: 1 - 2^-24.
  CHECK(step(a, b, kBf8, kBf8, 0.0f) == 1.0f - std::ldexp(1.0f, -24));
  std::swap(a[1], a[2]);
  std::swap(b[1], b[2]);
  // The same product in the even half is truncated toward zero beside 1.0: gone.
  CHECK(step(a, b, kBf8, kBf8, 0.0f) == 1.0f);
  // C = -2^-30 next to a product 1: 8-bit groups drop C (26 binades below), 16-bit ones round it down.
  std::vector<float> one(8, 0.0f);
  one[0] = 1.0f;
  CHECK(step(std::vector<float>(one.begin(), one.end()), one, kFp8, kFp8, -std::ldexp(1.0f, -30)) == 1.0f);
  CHECK(step(one, one, kBf16, kBf16, -std::ldexp(1.0f, -30)) == 1.0f - std::ldexp(1.0f, -24));
}

TEST_CASE("cdna3-fused-groups: NaN, infinities and overflowing products", "[mfma][policy]") {
  std::vector<float> a(8, 1.0f), b(8, 1.0f);
  a[3] = NAN;
  CHECK(bits_of(step(a, b, kBf16, kBf16, 0.0f)) == 0xffc00000u);
  a[3] = INFINITY;
  b[3] = 0.0f;
  CHECK(bits_of(step(a, b, kBf16, kBf16, 0.0f)) == 0xffc00000u);  // inf x 0
  b[3] = -2.0f;
  CHECK(step(a, b, kBf16, kBf16, 0.0f) == -INFINITY);
  // Finite bf16 factors whose product reaches 2^128: infinite whatever C is; both signs: NaN.
  std::vector<float> big(8, 0.0f), also_big(8, 0.0f);
  big[0] = std::ldexp(1.0f, 100);
  also_big[0] = std::ldexp(1.0f, 28);
  CHECK(step(big, also_big, kBf16, kBf16, -1e30f) == INFINITY);
  big[1] = -std::ldexp(1.0f, 100);
  also_big[1] = std::ldexp(1.0f, 30);
  CHECK(bits_of(step(big, also_big, kBf16, kBf16, 0.0f)) == 0xffc00000u);
}

TEST_CASE("cdna3-fused-groups: random groups match the published description bit for bit", "[mfma][policy]") {
  std::mt19937 rng(2511);
  for (const Pair& pair : kPairs) {
    const int count = pair.a.eight_bit ? 16 : 8;
    int differs_from_exact = 0;
    const int kCases = 20000;
    for (int n = 0; n < kCases; ++n) {
      std::vector<float> a(static_cast<size_t>(count)), b(static_cast<size_t>(count));
      for (int i = 0; i < count; ++i) a[size_t(i)] = random_element(pair.a, rng), b[size_t(i)] = random_element(pair.b, rng);
      const float c = random_accumulator(rng);
      const float want = described_group(a, b, pair.a, pair.b, c);
      INFO(pair.what << " case " << n);
      REQUIRE(bits_of(step(a, b, pair.a, pair.b, c)) == bits_of(want));
      long double exact = c;
      for (int i = 0; i < count; ++i) exact += (long double)a[size_t(i)] * b[size_t(i)];
      differs_from_exact += bits_of(float(exact)) != bits_of(want);
    }
    INFO(pair.what << ": " << differs_from_exact << " of " << kCases << " differ from the exact sum rounded once");
    CHECK(differs_from_exact > kCases / 100);
  }
}

namespace {

struct Kind {
  const char* mnemonic;
  int mn, k;
  Pair types;
};

// D of one MFMA under the policy, from the lane layout (lane l holds A[l % M][kpl*(l/M) + e],
// B[kpl*(l/N) + e][l % N] as element e of its registers) and the description above.
void check_emulated_kind(const Kind& s, uint32_t seed) {
  const int M = s.mn, kpl = s.k * M / 64, width = s.types.a.eight_bit ? 8 : 16, regs = kpl * width / 32;
  const int out = M * M / 64;
  std::mt19937 rng(seed);
  std::vector<float> a(size_t(M * s.k)), b(size_t(s.k * M)), c(size_t(M * M));
  std::vector<uint32_t> a_regs(size_t(regs) * 64, 0), b_regs(size_t(regs) * 64, 0), c_regs(size_t(out) * 64);
  for (int l = 0; l < 64; ++l)
    for (int e = 0; e < kpl; ++e) {
      const int k = kpl * (l / M) + e;
      const uint32_t ca = encode_element(s.types.a.type, random_element(s.types.a, rng));
      const uint32_t cb = encode_element(s.types.b.type, random_element(s.types.b, rng));
      a[size_t((l % M) * s.k + k)] = decode_element(s.types.a.type, ca);
      b[size_t(k * M + l % M)] = decode_element(s.types.b.type, cb);
      a_regs[size_t(e * width / 32) * 64 + l] |= ca << (e * width % 32);
      b_regs[size_t(e * width / 32) * 64 + l] |= cb << (e * width % 32);
    }
  auto row = [&](int l, int r) { return 4 * (64 / M) * (r / 4) + 4 * (l / M) + r % 4; };
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < out; ++r) {
      const float v = random_accumulator(rng);
      c[size_t(row(l, r) * M + l % M)] = v;
      c_regs[size_t(r) * 64 + l] = bits_of(v);
    }
  const OneMfma one{s.mnemonic, regs, regs, out};
  emu::EmulatorOptions options = instant();
  options.mfma_policy = MfmaPolicy::cdna3_fused_groups;
  const auto d = run_one_mfma(one, a_regs, b_regs, c_regs, {}, options);
  const auto chained = run_one_mfma(one, a_regs, b_regs, c_regs, {}, instant());
  const int group = s.types.a.eight_bit ? 16 : 8;
  int differs_from_chain = 0;
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < out; ++r) {
      const int i = row(l, r), j = l % M;
      float acc = c[size_t(i * M + j)];
      for (int k0 = 0; k0 < s.k; k0 += group) {
        std::vector<float> ga, gb;
        for (int k = k0; k < k0 + group; ++k) ga.push_back(a[size_t(i * s.k + k)]), gb.push_back(b[size_t(k * M + j)]);
        acc = described_group(ga, gb, s.types.a, s.types.b, acc);
      }
      INFO(s.mnemonic << " D[" << i << "][" << j << "]");
      REQUIRE(d[size_t(r) * 64 + l] == bits_of(acc));
      differs_from_chain += chained[size_t(r) * 64 + l] != d[size_t(r) * 64 + l];
    }
  INFO(s.mnemonic << ": " << differs_from_chain << " elements differ from fp32-fma-chain-k-order");
  CHECK(differs_from_chain > 0);
}

}  // namespace

TEST_CASE("cdna3-fused-groups: one MFMA of each covered kind on the emulator", "[emulator][mfma][policy]") {
  const Kind kinds[] = {
      {"v_mfma_f32_16x16x16_bf16", 16, 16, kPairs[0]},   {"v_mfma_f32_32x32x8_bf16", 32, 8, kPairs[0]},
      {"v_mfma_f32_16x16x16_f16", 16, 16, kPairs[1]},    {"v_mfma_f32_32x32x8_f16", 32, 8, kPairs[1]},
      {"v_mfma_f32_16x16x32_bf16", 16, 32, kPairs[0]},   {"v_mfma_f32_32x32x16_f16", 32, 16, kPairs[1]},
      {"v_mfma_f32_16x16x32_fp8_fp8", 16, 32, kPairs[2]}, {"v_mfma_f32_16x16x32_fp8_bf8", 16, 32, kPairs[3]},
      {"v_mfma_f32_32x32x16_bf8_fp8", 32, 16, kPairs[4]}, {"v_mfma_f32_32x32x16_bf8_bf8", 32, 16, kPairs[5]},
  };
  uint32_t seed = 1;
  for (const Kind& s : kinds) check_emulated_kind(s, seed++);
}

TEST_CASE("cdna3-fused-groups: f8f6f4 and sparse kinds stop the run", "[emulator][mfma][policy]") {
  emu::EmulatorOptions options = instant();
  options.mfma_policy = MfmaPolicy::cdna3_fused_groups;
  const OneMfma f8f6f4{"v_mfma_f32_16x16x128_f8f6f4", 8, 8, 4};
  CHECK_THROWS_WITH(run_one_mfma(f8f6f4, std::vector<uint32_t>(512), std::vector<uint32_t>(512),
                                 std::vector<uint32_t>(256), {}, options),
                    Catch::Contains("cdna3-fused-groups"));
  const OneMfma sparse{"v_smfmac_f32_16x16x64_bf16", 4, 8, 4, true};
  CHECK_THROWS_WITH(run_one_mfma(sparse, std::vector<uint32_t>(256), std::vector<uint32_t>(512),
                                 std::vector<uint32_t>(256), {}, options),
                    Catch::Contains("cdna3-fused-groups"));
  // The reference refuses what no CDNA3 kind computes.
  CHECK_THROWS_WITH(reference_gemm(MfmaPolicy::cdna3_fused_groups, DataType::fp4, std::vector<uint8_t>(8),
                                   DataType::fp4, std::vector<uint8_t>(8), 4, 4, 4),
                    Catch::Contains("cdna3-fused-groups"));
}

TEST_CASE("cdna3-fused-groups: GEMMs on the emulator match the reference under the same policy bit for bit",
          "[gemm][bitexact][policy]") {
  for (const char* file : {"tilelang_ns2_128x128x64_w4.json", "tilelang_ns2_f16_128x128x64_w4.json"}) {
    const Schedule s = schedule_test::load(file);
    for (auto [m, n, k] : {std::tuple{int64_t(128), int64_t(128), int64_t(256)}, {130, 70, 72}}) {
      const auto a = test::typed_matrix(s.type_a, size_t(m * k), false, 5);
      const auto b = test::typed_matrix(s.type_b, size_t(k * n), false, 6);
      EmulatorConfig config;
      config.mfma_policy = MfmaPolicy::cdna3_fused_groups;
      Device device = Device::emulator(config);
      const GemmProblem problem = test::problem(m, n, k, a, b, OutType::f32);
      const GemmRun run = run_gemm(device, s, problem);
      const auto fused = reference(s, problem, MfmaPolicy::cdna3_fused_groups), chained = reference(s, problem);
      INFO(file << " " << m << "x" << n << "x" << k);
      CHECK(run.launch.races.empty());
      CHECK(differing_elements(run.c, fused, 4) == 0);
      CHECK(differing_elements(run.c, chained, 4) > 0);  // the policy changed the arithmetic
    }
  }
}
