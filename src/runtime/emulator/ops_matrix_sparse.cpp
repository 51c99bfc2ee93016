// A * B of the sparse MFMAs. Lane l holds B[sparse_b_k(l, e)][l % N] as element e
// of its B registers (kpl*(l / N) + e, kpl = K / (64 / M), but for gfx950's 8-bit
// doubled-K kinds) and, as element s of its A registers,
// the s-th kept value of A[l % M][kpl*(l / M) .. +kpl-1]: kept values 2g and
// 2g+1 sit in group g (k = kpl*(l / M) + 4g .. +3) at the positions the index
// VGPR's 4 bits of group g give (common/mfma_table.hpp). Sources: docs/emulator.md.
#include <cmath>
#include <type_traits>

#include "common/element_formats.hpp"
#include "runtime/emulator/mfma_sparse.hpp"

namespace cdna4::emu {
namespace {

using gfx950::Element;

constexpr int kMaxB = 128 * 32;  // K x N of the largest kinds

uint32_t element_bits(const Wave& w, uint32_t first_reg, int lane, int e, int width) {
  const int bit = width * e;
  return (w.v(first_reg + bit / 32)[lane] >> (bit % 32)) & ((1u << width) - 1);
}

template <class T> T value_of(Element e, uint32_t bits) {
  if constexpr (std::is_same_v<T, int32_t>) return int32_t(int8_t(bits));
  else return gfx950::element_value(e, bits);
}

template <class T> void multiply(const Wave& w, const Inst& in, const gfx950::MfmaInfo& kind, T* acc) {
  const int M = kind.m, N = kind.n, K = kind.k, per_lane = K / (kLanes / M), groups = gfx950::sparse_groups(kind);
  const int width_a = gfx950::bits_of(kind.element), width_b = gfx950::bits_of(kind.element_b);
  const int set = int(in.offset);
  T b[kMaxB];
  for (int l = 0; l < kLanes; ++l)
    for (int e = 0; e < per_lane; ++e)
      b[gfx950::sparse_b_k(kind, l, e) * N + l % N] =
          value_of<T>(kind.element_b, element_bits(w, in.src[1].index, l, e, width_b));
  const uint32_t* index = w.v(in.src[3].index);
  for (int i = 0; i < M; ++i)
    for (int block = 0; block < kLanes / M; ++block) {
      const int lane = i + M * block;
      for (int g = 0; g < groups; ++g) {
        const uint32_t positions = index[lane] >> gfx950::sparse_index_shift(kind, set, g);
        for (int h = 0; h < 2; ++h) {
          const T a = value_of<T>(kind.element, element_bits(w, in.src[0].index, lane, 2 * g + h, width_a));
          const int k = per_lane * block + 4 * g + int(positions >> (2 * h) & 3);
          for (int j = 0; j < N; ++j) {
            if constexpr (std::is_same_v<T, int32_t>) acc[i * N + j] = int32_t(uint32_t(acc[i * N + j]) + uint32_t(a * b[k * N + j]));
            else acc[i * N + j] = std::fma(a, b[k * N + j], acc[i * N + j]);
          }
        }
      }
    }
}

}  // namespace

void mfma_sparse_multiply(const Wave& w, const Inst& in, const gfx950::MfmaInfo& kind, float* acc) {
  multiply(w, in, kind, acc);
}
void mfma_sparse_multiply(const Wave& w, const Inst& in, const gfx950::MfmaInfo& kind, int32_t* acc) {
  multiply(w, in, kind, acc);
}

}  // namespace cdna4::emu
