// Sparse MFMAs (v_smfmac_*): A is 4:2 structured-sparse. Definition, as the
// CDNA 3 ISA guide's SMFMAC section and AMD's matrix instruction calculator give
// it (and LLVM's gfx950 index-width rule for the doubled-K kinds), written out here:
// - lane l covers k = kpl*(l / M) .. +kpl-1 of A's row l % M and B's column
//   l % N (kpl = K*M/64); B holds all kpl values (element e at k = kpl*(l/N) + e),
//   A only kpl/2: elements 2g and 2g+1 are the two kept values of group g
//   (k = kpl*(l/M) + 4g .. 4g+3);
// - except B of gfx950's 8-bit doubled-K kinds (16x16x128, 32x32x64, kpl = 32):
//   two halves of K/2, 16 per lane each (element e < 16 at k = 16*(l/N) + e, e >= 16
//   at K/2 + 16*(l/N) + e - 16), the pairing AITER's mxfp4 attention relies on
//   (last test case);
// - the index VGPR (the instruction's src C) gives, per group, 4 bits at
//   4g + 2*(kpl/2)*set: bits 1:0 the position (0..3) of element 2g, bits 3:2
//   that of 2g+1; set = abid when cbsz = 0, else 0;
// - D (the accumulator, in place) += A * B.
// Data are small integers, so every sum is exact and the order of the adds
// cannot change the result.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>

#include "emulator_one_mfma.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

enum class T { bf16, f16, fp8, bf8, i8 };

struct Kind {
  std::string mnemonic;
  int mn, k;
  T a, b;
};

int bits_of(T t) { return t == T::bf16 || t == T::f16 ? 16 : 8; }
int kpl(const Kind& s) { return s.k * s.mn / 64; }
int a_regs(const Kind& s) { return kpl(s) / 2 * bits_of(s.a) / 32; }
int b_regs(const Kind& s) { return kpl(s) * bits_of(s.b) / 32; }
int out_regs(const Kind& s) { return s.mn * s.mn / 64; }
int sets(const Kind& s) { return 32 / (2 * (kpl(s) / 2)); }
int b_k(const Kind& s, int lane, int e) {
  if (bits_of(s.b) == 8 && kpl(s) == 32) return (e / 16) * (s.k / 2) + 16 * (lane / s.mn) + e % 16;
  return kpl(s) * (lane / s.mn) + e;
}
int d_row(const Kind& s, int lane, int reg) { return 4 * (64 / s.mn) * (reg / 4) + 4 * (lane / s.mn) + reg % 4; }

std::vector<Kind> kinds() {
  std::vector<Kind> out;
  const char* names[] = {"bf16", "f16", "fp8", "bf8", "i8"};
  for (T t : {T::f16, T::bf16})
    for (auto [mn, k] : {std::pair{16, 32}, {32, 16}, {16, 64}, {32, 32}})
      out.push_back({fmt::format("v_smfmac_f32_{0}x{0}x{1}_{2}", mn, k, names[int(t)]), mn, k, t, t});
  for (auto [mn, k] : {std::pair{16, 64}, {32, 32}, {16, 128}, {32, 64}}) {
    out.push_back({fmt::format("v_smfmac_i32_{0}x{0}x{1}_i8", mn, k), mn, k, T::i8, T::i8});
    for (T a : {T::fp8, T::bf8})
      for (T b : {T::fp8, T::bf8})
        out.push_back({fmt::format("v_smfmac_f32_{0}x{0}x{1}_{2}_{3}", mn, k, names[int(a)], names[int(b)]), mn, k, a, b});
  }
  return out;
}

// Small integers (|v| <= 8) in each type.
uint32_t encode(T t, int v) {
  const uint32_t sign = v < 0 ? 1 : 0, m = uint32_t(std::abs(v));
  if (t == T::i8) return uint32_t(v) & 0xff;
  if (m == 0) return sign << (bits_of(t) - 1);
  const int e = std::ilogb(double(m));
  const uint32_t fraction = m - (1u << e);  // below the leading one
  switch (t) {
    case T::bf16: return sign << 15 | uint32_t(e + 127) << 7 | fraction << (7 - e);
    case T::f16: return sign << 15 | uint32_t(e + 15) << 10 | fraction << (10 - e);
    case T::fp8: return sign << 7 | uint32_t(e + 7) << 3 | fraction << (3 - e);
    default: return sign << 7 | uint32_t(e + 15) << 2 | fraction << std::max(0, 2 - e);  // bf8: |v| in 1, 2, 3, 4, 6, 8 (8: no fraction)
  }
}
int small_value(T t, uint32_t h) {
  static const int bf8_values[] = {0, 1, 2, 3, 4, 6, 8, -1, -2, -3, -4, -6, -8};
  if (t == T::bf8) return bf8_values[h % 13];
  return int(h % 17) - 8;
}

uint32_t hash(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352d;
  x ^= x >> 15;
  x *= 0x846ca68b;
  return x ^ (x >> 16);
}

struct Case {
  std::vector<int> a_dense, b;  // A M x K (zeros where not kept), B K x N
  std::vector<uint32_t> a_regs, b_regs, c_regs, index;
  std::vector<int64_t> c;       // C M x N
};

void put(std::vector<uint32_t>& regs, int lane, int element, int width, uint32_t code) {
  const int bit = element * width;
  regs[size_t(bit / 32) * 64 + lane] |= code << (bit % 32);
}

// Random kept values and positions; `set` is the index set the instruction reads,
// the other sets hold other positions.
Case make_case(const Kind& s, int set, uint32_t seed, bool fixed_positions = false) {
  const int M = s.mn, K = s.k, per = kpl(s), groups = per / 4;
  Case c;
  c.a_dense.assign(size_t(M * K), 0);
  c.b.assign(size_t(K * M), 0);
  c.a_regs.assign(size_t(a_regs(s)) * 64, 0);
  c.b_regs.assign(size_t(b_regs(s)) * 64, 0);
  c.c_regs.assign(size_t(out_regs(s)) * 64, 0);
  c.index.assign(64, 0);
  c.c.assign(size_t(M * M), 0);
  for (int l = 0; l < 64; ++l) {
    for (int e = 0; e < per; ++e) {
      const int k = b_k(s, l, e), v = small_value(s.b, hash(seed + 7919u * uint32_t(k * M + l % M)));
      c.b[size_t(k * M + l % M)] = v;
      put(c.b_regs, l, e, bits_of(s.b), encode(s.b, v));
    }
    for (int each = 0; each < sets(s); ++each)
      for (int g = 0; g < groups; ++g) {
        const uint32_t h = hash(seed * 31 + uint32_t(l * 977 + g * 13 + each));
        int p0 = int(h % 4), p1 = int((h >> 2) % 3);
        p1 += p1 >= p0;  // distinct, in either order
        if (fixed_positions) p0 = 0, p1 = 2;
        c.index[size_t(l)] |= uint32_t(p0 | p1 << 2) << (4 * g + 2 * (per / 2) * each);
        if (each != set) continue;
        for (int h2 = 0; h2 < 2; ++h2) {
          const int v = small_value(s.a, hash(h + uint32_t(h2) * 101));
          c.a_dense[size_t((l % M) * K + per * (l / M) + 4 * g + (h2 ? p1 : p0))] = v;
          put(c.a_regs, l, 2 * g + h2, bits_of(s.a), encode(s.a, v));
        }
      }
  }
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < out_regs(s); ++r) {
      const int v = int(hash(seed + 3u * uint32_t(l * 64 + r)) % 41) - 20;
      c.c[size_t(d_row(s, l, r) * M + l % M)] = v;
      c.c_regs[size_t(r) * 64 + l] = s.a == T::i8 ? uint32_t(v) : bits(float(v));
    }
  return c;
}

void check(const Kind& s, const Case& c, const std::string& modifiers) {
  const OneMfma one{s.mnemonic, a_regs(s), b_regs(s), out_regs(s), true, modifiers};
  emu::RunStats stats;
  const auto d = run_one_mfma(one, c.a_regs, c.b_regs, c.c_regs, c.index, randomized(9), &stats);
  INFO(s.mnemonic << " " << modifiers << "\n" << race_text(stats));
  CHECK(stats.races.empty());
  const int M = s.mn;
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < out_regs(s); ++r) {
      const int i = d_row(s, l, r), j = l % M;
      int64_t sum = c.c[size_t(i * M + j)];
      for (int k = 0; k < s.k; ++k) sum += int64_t(c.a_dense[size_t(i * s.k + k)]) * c.b[size_t(k * M + j)];
      const uint32_t want = s.a == T::i8 ? uint32_t(int32_t(sum)) : bits(float(sum));
      INFO("D[" << i << "][" << j << "]");
      REQUIRE(d[size_t(r) * 64 + l] == want);
    }
}

}  // namespace

TEST_CASE("SMFMAC: every sparse kind, random kept positions, every element of D", "[emulator][mfma][smfmac]") {
  for (const Kind& s : kinds()) check(s, make_case(s, 0, 1 + uint32_t(s.k)), "");
}

TEST_CASE("SMFMAC: abid picks the index set when cbsz is 0, set 0 otherwise", "[emulator][mfma][smfmac]") {
  int kinds_with_sets = 0;
  for (const Kind& s : kinds()) {
    if (sets(s) == 1) continue;
    ++kinds_with_sets;
    for (int set = 0; set < sets(s); ++set) check(s, make_case(s, set, 40 + uint32_t(set)), fmt::format("abid:{}", set));
    check(s, make_case(s, 0, 50), fmt::format("cbsz:1 abid:{}", sets(s) - 1));
  }
  CHECK(kinds_with_sets == 18);  // CDNA3's 14 kinds (4 / 2 sets) and gfx950's 16-bit doubled-K kinds (2)
}

TEST_CASE("SMFMAC: B values at positions the index skips are never read", "[emulator][mfma][smfmac]") {
  const Kind s{"v_smfmac_f32_16x16x64_bf16", 16, 64, T::bf16, T::bf16};
  Case c = make_case(s, 0, 3, true);  // kept positions 0 and 2 in every group
  for (int l = 0; l < 64; ++l)
    for (int e = 1; e < kpl(s); e += 2) {  // positions 1 and 3: +infinity
      const int bit = 16 * e;
      c.b_regs[size_t(bit / 32) * 64 + l] |= 0x7f80u << (bit % 32);
    }
  check(s, c, "");
}

TEST_CASE("SMFMAC: an index set the kind does not have stops the run", "[emulator][mfma][smfmac]") {
  const Kind s{"v_smfmac_f32_16x16x128_fp8_fp8", 16, 128, T::fp8, T::fp8};
  REQUIRE(sets(s) == 1);
  const Case c = make_case(s, 0, 5);
  const OneMfma one{s.mnemonic, a_regs(s), b_regs(s), out_regs(s), true, "abid:1"};
  CHECK_THROWS_WITH(run_one_mfma(one, c.a_regs, c.b_regs, c.c_regs, c.index, instant()),
                    Catch::Contains("index set"));
}

TEST_CASE("SMFMAC: reading D early is a hazard with 4 / 8 passes", "[emulator][mfma][smfmac][hazards]") {
  for (const Kind& s : {Kind{"v_smfmac_f32_16x16x128_fp8_fp8", 16, 128, T::fp8, T::fp8},
                        Kind{"v_smfmac_f32_32x32x32_bf16", 32, 32, T::bf16, T::bf16}}) {
    const int last = out_regs(s) - 1, needed = s.mn == 16 ? 8 : 12;
    auto hazards = [&](int nops) {
      return reports_after(fmt::format("{} v[24:{}], v[8:{}], v[12:{}], v20", s.mnemonic, 24 + last, 7 + a_regs(s),
                                       11 + b_regs(s)),
                           nops, fmt::format("v_mov_b32 v1, v{}", 24 + last));
    };
    INFO(s.mnemonic);
    CHECK(hazards(needed - 1).find(fmt::format("needs {} wait states", needed)) != std::string::npos);
    CHECK(hazards(needed).empty());
  }
}

// AITER's fmha_v4_fwd mxfp4 kernel sums each softmax row with this instruction:
// B = its P operand of v_mfma_f32_32x32x64_f8f6f4 (lanes q and q + 32 hold the
// 64 values of query q), A = fp8 1.0 in the lanes with (l & 3) < 2, in compressed
// elements 0-7 when (l & 4) == 0 and 8-15 otherwise, index 0x44444444 (positions
// 0, 1) except 0xeeeeeeee (positions 2, 3) when (l & 3) == 1. Then D rows 4*(l/16)
// and 4*(l/16) + 1 of lane l add up to the sum of query l % 32's 64 values.
TEST_CASE("SMFMAC: fp8 16x16x128 sums the rows of a 32x32x64 B operand as AITER's attention uses it",
          "[emulator][mfma][smfmac]") {
  const Kind s{"v_smfmac_f32_16x16x128_fp8_fp8", 16, 128, T::fp8, T::fp8};
  std::vector<uint32_t> a(size_t(a_regs(s)) * 64, 0), b(size_t(b_regs(s)) * 64, 0), c(size_t(out_regs(s)) * 64, 0),
      index(64);
  std::vector<int> row_sum(32, 0);
  for (int l = 0; l < 64; ++l) {
    for (int e = 0; e < 32; ++e) {
      const int v = small_value(T::fp8, hash(uint32_t(l * 32 + e)));
      put(b, l, e, 8, encode(T::fp8, v));
      row_sum[size_t(l % 32)] += v;
    }
    if ((l & 3) < 2)
      for (int e = 0; e < 8; ++e) put(a, l, e + ((l & 4) ? 8 : 0), 8, encode(T::fp8, 1));
    index[size_t(l)] = (l & 3) == 1 ? 0xeeeeeeeeu : 0x44444444u;
  }
  const OneMfma one{s.mnemonic, a_regs(s), b_regs(s), out_regs(s), true, ""};
  emu::RunStats stats;
  const auto d = run_one_mfma(one, a, b, c, index, randomized(9), &stats);
  for (int l = 0; l < 64; ++l) {
    INFO("lane " << l);
    const float got = std::bit_cast<float>(d[size_t(l)]) + std::bit_cast<float>(d[size_t(64 + l)]);
    CHECK(got == float(row_sum[size_t(l % 32)]));
  }
}
