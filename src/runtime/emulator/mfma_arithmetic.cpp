#include "runtime/emulator/mfma_arithmetic.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "common/mfma_fused_groups.hpp"
#include "common/nan_rules.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace cdna4::emu {
namespace {

// A's element (i, kk) at a[i * row + kk * col]: (K, 1) for row-major A, (1, M) for k-major.
struct ALayout {
  int row, col;
};

// Reference form of the policy: the k loop is sequential for every element.
void chain_portable(int m, int n, int k, const float* a, ALayout al, const float* b, float* acc) {
  for (int kk = 0; kk < k; ++kk)
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) acc[i * n + j] = std::fma(a[i * al.row + kk * al.col], b[kk * n + j], acc[i * n + j]);
  for (int i = 0; i < m * n; ++i) acc[i] = gfx950::mfma_result(acc[i]);
}

#if defined(__x86_64__)
// Same arithmetic with 8-wide FMAs: kRows rows of the accumulator stay in
// registers (independent chains hide FMA latency); each element still sees
// its k terms one by one, in order, each rounded once. NaNs become the default
// NaN in the registers (gfx950::mfma_result), whatever NaN the host's FMA chose.
template <int N, int K, int kRows>
__attribute__((target("avx2,fma"))) void chain_rows(const float* a, ALayout al, const float* b, float* acc, int row0) {
  constexpr int kVecs = N / 8;
  __m256 sum[kRows][kVecs];
  for (int r = 0; r < kRows; ++r)
    for (int v = 0; v < kVecs; ++v) sum[r][v] = _mm256_loadu_ps(acc + (row0 + r) * N + 8 * v);
  for (int kk = 0; kk < K; ++kk) {
    __m256 bv[kVecs];
    for (int v = 0; v < kVecs; ++v) bv[v] = _mm256_loadu_ps(b + kk * N + 8 * v);
    for (int r = 0; r < kRows; ++r) {
      __m256 ai = _mm256_set1_ps(a[(row0 + r) * al.row + kk * al.col]);
      for (int v = 0; v < kVecs; ++v) sum[r][v] = _mm256_fmadd_ps(ai, bv[v], sum[r][v]);
    }
  }
  const __m256 default_nan = _mm256_set1_ps(gfx950::default_nan());
  for (int r = 0; r < kRows; ++r)
    for (int v = 0; v < kVecs; ++v) {
      const __m256 nan = _mm256_cmp_ps(sum[r][v], sum[r][v], _CMP_UNORD_Q);
      _mm256_storeu_ps(acc + (row0 + r) * N + 8 * v, _mm256_blendv_ps(sum[r][v], default_nan, nan));
    }
}

// The same with 16-wide FMAs where the host has AVX-512: a 16-element row is one register.
template <int N, int K, int kRows>
__attribute__((target("avx512f"))) void chain_rows_512(const float* a, ALayout al, const float* b, float* acc,
                                                       int row0) {
  constexpr int kVecs = N / 16;
  __m512 sum[kRows][kVecs];
  for (int r = 0; r < kRows; ++r)
    for (int v = 0; v < kVecs; ++v) sum[r][v] = _mm512_loadu_ps(acc + (row0 + r) * N + 16 * v);
  for (int kk = 0; kk < K; ++kk) {
    __m512 bv[kVecs];
    for (int v = 0; v < kVecs; ++v) bv[v] = _mm512_loadu_ps(b + kk * N + 16 * v);
    for (int r = 0; r < kRows; ++r) {
      const __m512 ai = _mm512_set1_ps(a[(row0 + r) * al.row + kk * al.col]);
      for (int v = 0; v < kVecs; ++v) sum[r][v] = _mm512_fmadd_ps(ai, bv[v], sum[r][v]);
    }
  }
  const __m512 default_nan = _mm512_set1_ps(gfx950::default_nan());
  for (int r = 0; r < kRows; ++r)
    for (int v = 0; v < kVecs; ++v) {
      const __mmask16 nan = _mm512_cmp_ps_mask(sum[r][v], sum[r][v], _CMP_UNORD_Q);
      _mm512_storeu_ps(acc + (row0 + r) * N + 16 * v, _mm512_mask_blend_ps(nan, sum[r][v], default_nan));
    }
}

// v_mfma_f32_{16x16x32,32x32x16}_bf16 read and written in the registers' own
// layout, for AVX-512 hosts: the policy's chain with no unpacked copies.
// Register r of A and of B holds k = 8 g + 2 r + e in bf16 e (e = 0 low) of
// lanes N g .. N g + N - 1, lane order = row of A / column of B, so N lanes
// shifted or masked are a whole k-row of B (and of A k-major): a load and an
// integer op per 16 of them. 16 accumulator registers hold kRows rows of D at
// a time; D is written once everything is read (it may overlap A, B or C).
__attribute__((target("avx512f"), always_inline)) inline __m512 bf16_k_row(const uint32_t* regs, int n, int kk,
                                                                            int v) {
  const __m512i x = _mm512_loadu_si512(regs + ((kk % 8) / 2) * kRegisterStride + (kk / 8) * n + 16 * v);
  return _mm512_castsi512_ps(kk % 2 ? _mm512_and_si512(x, _mm512_set1_epi32(int(0xffff0000u)))
                                    : _mm512_maskz_slli_epi32(0xffff, x, 16));  // (unmasked: a GCC 12 false warning)
}
// Row i of an N x N result: register 4 (i / (4 G)) + i % 4, lanes N ((i % 4 G) / 4) .., G = 64 / N lane groups.
template <int N> constexpr int d_row(int i) {
  constexpr int kBlock = 4 * (kRegisterStride / N);
  return (4 * (i / kBlock) + i % 4) * kRegisterStride + ((i % kBlock) / 4) * N;
}

template <int N>
__attribute__((target("avx512f"))) void bf16_in_registers_512(const uint32_t* a, const uint32_t* b, const uint32_t* c,
                                                              uint32_t c_imm, uint32_t* d) {
  constexpr int kK = 512 / N, kVecs = N / 16, kRows = 16 / kVecs;
  alignas(64) float a_k_major[kK * N];
  for (int kk = 0; kk < kK; ++kk)
    for (int v = 0; v < kVecs; ++v) _mm512_store_ps(a_k_major + kk * N + 16 * v, bf16_k_row(a, N, kk, v));
  alignas(64) float out[N * N];  // several passes: D waits until the last has read A, B and C
  const __m512 default_nan = _mm512_set1_ps(gfx950::default_nan());
  for (int row0 = 0; row0 < N; row0 += kRows) {
    __m512 sum[kRows][kVecs];
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r)
      for (int v = 0; v < kVecs; ++v)
        sum[r][v] = c ? _mm512_loadu_ps(reinterpret_cast<const float*>(c + d_row<N>(row0 + r) + 16 * v))
                      : _mm512_castsi512_ps(_mm512_set1_epi32(int(c_imm)));
#pragma GCC unroll 2
    for (int kk = 0; kk < kK; ++kk) {
      __m512 bv[kVecs];
      for (int v = 0; v < kVecs; ++v) bv[v] = bf16_k_row(b, N, kk, v);
#pragma GCC unroll 16
      for (int r = 0; r < kRows; ++r) {
        const __m512 ai = _mm512_set1_ps(a_k_major[kk * N + row0 + r]);
        for (int v = 0; v < kVecs; ++v) sum[r][v] = _mm512_fmadd_ps(ai, bv[v], sum[r][v]);
      }
    }
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r)
      for (int v = 0; v < kVecs; ++v) {
        const __mmask16 nan = _mm512_cmp_ps_mask(sum[r][v], sum[r][v], _CMP_UNORD_Q);
        const __m512 result = _mm512_mask_blend_ps(nan, sum[r][v], default_nan);
        if constexpr (kRows == N) _mm512_storeu_ps(reinterpret_cast<float*>(d + d_row<N>(row0 + r) + 16 * v), result);
        else _mm512_store_ps(out + (row0 + r) * N + 16 * v, result);
      }
  }
  if constexpr (kRows != N)
    for (int i = 0; i < N; ++i) std::memcpy(d + d_row<N>(i), out + i * N, N * sizeof(float));
}

// The widest FMA path the host has; CDNA4_EMULATOR_SIMD=avx2 or =portable
// narrows it (the tests run each path on a host that has them all).
enum class Simd { portable, avx2, avx512 };
Simd host_simd() {
  static const Simd simd = [] {
    const char* want = std::getenv("CDNA4_EMULATOR_SIMD");
    const std::string_view w = want ? want : "";
    if (w == "portable" || !__builtin_cpu_supports("fma") || !__builtin_cpu_supports("avx2")) return Simd::portable;
    if (w == "avx2" || !__builtin_cpu_supports("avx512f")) return Simd::avx2;
    return Simd::avx512;
  }();
  return simd;
}

template <int M, int N, int K>
void chain_fused(const float* a, ALayout al, const float* b, float* acc) {
  if (host_simd() == Simd::avx512) {
    constexpr int kRows = 128 / N;  // 8 rows of 16 or 4 rows of 32: 8 accumulators
    for (int row = 0; row < M; row += kRows) chain_rows_512<N, K, kRows>(a, al, b, acc, row);
    return;
  }
  constexpr int kRows = 32 / N * 2;  // 4 rows of 16 or 2 rows of 32: 8 accumulators
  for (int row = 0; row < M; row += kRows) chain_rows<N, K, kRows>(a, al, b, acc, row);
}

#endif

void fma_chain(int m, int n, int k, const float* a, ALayout al, const float* b, float* acc) {
#if defined(__x86_64__)
  if (host_simd() != Simd::portable) {
    if (m == 16 && n == 16 && k == 32) return chain_fused<16, 16, 32>(a, al, b, acc);
    if (m == 32 && n == 32 && k == 16) return chain_fused<32, 32, 16>(a, al, b, acc);
    if (m == 16 && n == 16 && k == 16) return chain_fused<16, 16, 16>(a, al, b, acc);
    if (m == 32 && n == 32 && k == 8) return chain_fused<32, 32, 8>(a, al, b, acc);
    if (m == 16 && n == 16 && k == 128) return chain_fused<16, 16, 128>(a, al, b, acc);
    if (m == 32 && n == 32 && k == 64) return chain_fused<32, 32, 64>(a, al, b, acc);
  }
#endif
  chain_portable(m, n, k, a, al, b, acc);
}

}  // namespace

bool mfma_bf16_in_registers(int n, const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t c_imm,
                            uint32_t* d) {
#if defined(__x86_64__)
  if (host_simd() == Simd::avx512 && (n == 16 || n == 32)) {
    (n == 16 ? bf16_in_registers_512<16> : bf16_in_registers_512<32>)(a, b, c, c_imm, d);
    return true;
  }
#endif
  return false;
}

void mfma_fma_chain(int m, int n, int k, const float* a, const float* b, float* acc) {
  fma_chain(m, n, k, a, {k, 1}, b, acc);
}

namespace {
// The fused groups on A at any layout: each group of A's row is gathered, as B's column is.
void fused_groups(int m, int n, int k, const float* a, ALayout al, const float* b, float* acc, gfx950::Element ta,
                  gfx950::Element tb) {
  const int group = gfx950::fused_group_size(ta);
  float row[16], column[16];
  for (int j = 0; j < n; ++j)
    for (int k0 = 0; k0 < k; k0 += group) {
      const int count = std::min(group, k - k0);
      for (int x = 0; x < count; ++x) column[x] = b[(k0 + x) * n + j];
      for (int i = 0; i < m; ++i) {
        for (int x = 0; x < count; ++x) row[x] = a[i * al.row + (k0 + x) * al.col];
        acc[i * n + j] = gfx950::fused_group_step(row, column, count, ta, tb, acc[i * n + j]);
      }
    }
}
}  // namespace

void mfma_fused_groups(int m, int n, int k, const float* a, const float* b, float* acc, gfx950::Element ta,
                       gfx950::Element tb) {
  fused_groups(m, n, k, a, {k, 1}, b, acc, ta, tb);
}

void mfma_accumulate(MfmaPolicy policy, int m, int n, int k, const float* a, const float* b, float* acc,
                     gfx950::Element ta, gfx950::Element tb) {
  if (policy == MfmaPolicy::cdna3_fused_groups) return mfma_fused_groups(m, n, k, a, b, acc, ta, tb);
  mfma_fma_chain(m, n, k, a, b, acc);
}

void mfma_accumulate_k_major_a(MfmaPolicy policy, int m, int n, int k, const float* a_k_major, const float* b,
                               float* acc, gfx950::Element ta, gfx950::Element tb) {
  if (policy == MfmaPolicy::fp32_fma_chain_k_order) return fma_chain(m, n, k, a_k_major, {1, m}, b, acc);
  fused_groups(m, n, k, a_k_major, {1, m}, b, acc, ta, tb);
}

}  // namespace cdna4::emu
