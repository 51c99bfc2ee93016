// MFMA: one handler per row of gfx950::kMfmaKinds (common/mfma_table.hpp), specialised at
// compile time. Floating-point kinds follow the run's policy (mfma_arithmetic.hpp),
// writing every NaN as the default NaN (common/nan_rules.hpp); i8 kinds accumulate exactly in int32 with wrap-around. Sparse kinds: mfma_sparse.hpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <utility>

#include "common/element_formats.hpp"
#include "common/mfma_fused_groups.hpp"
#include "common/mfma_table.hpp"
#include "common/nan_rules.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/mfma_arithmetic.hpp"
#include "runtime/emulator/mfma_f8f6f4.hpp"
#include "runtime/emulator/mfma_sparse.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

using gfx950::Element;
using gfx950::kMfmaKinds;

float bf16_to_float(uint32_t v) { return as_float(v << 16); }

float f16_to_float(uint32_t v) {
  const uint32_t sign = (v & 0x8000u) << 16, exponent = (v >> 10) & 0x1f, mantissa = v & 0x3ff;
  if (exponent == 0x1f) return as_float(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) return std::copysign(std::ldexp(float(mantissa), -24), as_float(sign));
  return as_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

template <Element E> auto element_value(uint32_t bits) {
  if constexpr (E == Element::bf16) return bf16_to_float(bits);
  else if constexpr (E == Element::f16) return f16_to_float(bits);
  else if constexpr (E == Element::i8) return int32_t(int8_t(bits));
  else return gfx950::element_value(E, bits);  // fp8, bf8
}

// A * B of the bf16, f16, fp8 / bf8 and i8 kinds: A / B elements kPerReg to a dword.
// Lane l holds row (A) / column (B) l % M and k = kPerLane * (l / M) + kPerReg * r + e
// in element e of register r: for one (r, e) and lane group, M consecutive lanes
// fill M consecutive entries of A k-major and of B, loops the host vectorises.
template <size_t I, class T> void multiply(const Wave& w, const Inst& in, T* acc) {
  constexpr gfx950::MfmaInfo kind = kMfmaKinds[I];
  constexpr int M = kind.m, N = kind.n, K = kind.k;
  constexpr int kPerLane = K / (kLanes / M);
  constexpr int kPerReg = kPerLane / kind.ab_regs;
  constexpr int kBits = 32 / kPerReg;
  constexpr uint32_t kMask = (1u << kBits) - 1;
  static_assert(M == N && kPerLane * (kLanes / M) == K && kPerReg * kind.ab_regs == kPerLane);
  alignas(32) T a_k_major[K * M], b[K * N];
  for (int r = 0; r < kind.ab_regs; ++r) {
    const uint32_t* ra = w.v(in.src[0].index + r);
    const uint32_t* rb = w.v(in.src[1].index + r);
    for (int g = 0; g < kLanes / M; ++g)
      for (int e = 0; e < kPerReg; ++e) {
        const int kk = kPerLane * g + kPerReg * r + e;
        for (int i = 0; i < M; ++i) {
          a_k_major[kk * M + i] = element_value<kind.element>((ra[g * M + i] >> (kBits * e)) & kMask);
          b[kk * N + i] = element_value<kind.element_b>((rb[g * N + i] >> (kBits * e)) & kMask);
        }
      }
  }
  if constexpr (kind.element == Element::i8) {
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        uint32_t sum = uint32_t(acc[i * N + j]);
        for (int kk = 0; kk < K; ++kk) sum += uint32_t(a_k_major[kk * M + i] * b[kk * N + j]);
        acc[i * N + j] = int32_t(sum);
      }
  } else {
    mfma_accumulate_k_major_a(w.wg->options.mfma_policy, M, N, K, a_k_major, b, acc, kind.element, kind.element_b);
  }
}

// Kinds that MMA-Sim's CDNA3 rule does not cover (docs/emulator.md) stop a cdna3-fused-groups run.
constexpr bool refused_under_fused_groups(const gfx950::MfmaInfo& kind) {
  return kind.element != Element::i8 && !gfx950::has_fused_groups(kind);
}

template <size_t I> void mfma(Wave& w, const Inst& in) {
  constexpr gfx950::MfmaInfo kind = kMfmaKinds[I];
  constexpr int M = kind.m, N = kind.n, K = kind.k;
  constexpr int kOutRegs = M * N / kLanes;
  using T = std::conditional_t<kind.element == Element::i8, int32_t, float>;
  // The chain and the fused groups write NaNs as the default NaN themselves; these kinds' arithmetic does not.
  constexpr bool kNaNsToDefault = (kind.f8f6f4 || kind.sparse) && kind.element != Element::i8;
  if (w.exec() != ~0ull) w.wg->fail(w, in, "MFMA with a partial EXEC mask is not modelled");
  if (refused_under_fused_groups(kind) && w.wg->options.mfma_policy == MfmaPolicy::cdna3_fused_groups)
    w.wg->fail(w, in, "the cdna3-fused-groups MFMA policy does not define this kind (f8f6f4 and sparse kinds)");
  if (in.src[0].kind != OperandKind::Vgpr || in.src[1].kind != OperandKind::Vgpr)
    w.wg->fail(w, in, "MFMA A/B operands other than registers are not modelled");
  if constexpr (kind.element == Element::bf16 && kind.element_b == Element::bf16 && M == N && M * K == 512 &&
                kind.ab_regs == 4 && !kind.sparse && !kind.f8f6f4 && !kind.scaled) {  // 16x16x32 and 32x32x16
    static_assert(kRegisterStride == kLanes);
    const Operand& c = in.src[2];
    if (w.wg->options.mfma_policy == MfmaPolicy::fp32_fma_chain_k_order &&
        mfma_bf16_in_registers(N, w.v(in.src[0].index), w.v(in.src[1].index),
                                        c.kind == OperandKind::Vgpr ? w.v(c.index) : nullptr, uint32_t(c.imm),
                                        w.v(in.dst[0].index))) {
      w.wg->mfma_macs += uint64_t(M) * N * K;
      return;
    }
  }
  alignas(32) T acc[M * N];
  // Register r of lane group g (lanes g N .. g N + N - 1) holds row row_of(g, r), columns in lane order.
  auto row_of = [](int g, int r) { return 4 * (kLanes / N) * (r / 4) + 4 * g + r % 4; };
  const Operand& c = in.src[2];
  for (int r = 0; r < kOutRegs; ++r)
    for (int g = 0; g < kLanes / N; ++g) {
      T* row = acc + row_of(g, r) * N;
      if (c.kind == OperandKind::Vgpr) std::memcpy(row, w.v(c.index + r) + g * N, N * sizeof(T));
      else std::fill_n(row, N, std::bit_cast<T>(static_cast<uint32_t>(c.imm)));
    }
  if constexpr (kind.f8f6f4) mfma_f8f6f4_multiply(w, in, kind, acc);
  else if constexpr (kind.sparse) mfma_sparse_multiply(w, in, kind, acc);
  else multiply<I>(w, in, acc);
  if constexpr (kNaNsToDefault)
    for (T& x : acc) x = gfx950::mfma_result(x);
  for (int r = 0; r < kOutRegs; ++r)
    for (int g = 0; g < kLanes / N; ++g) std::memcpy(w.v(in.dst[0].index + r) + g * N, acc + row_of(g, r) * N, N * sizeof(T));
  w.wg->mfma_macs += uint64_t(M) * N * K;
}

constexpr uint16_t flags_of(const gfx950::MfmaInfo& kind) {
  return (kind.f8f6f4 ? hflag::kMatrixFormats : 0) | (kind.scaled ? hflag::kMatrixScales : 0);
}

template <size_t... I> void register_kinds(HandlerRegistry& r, std::index_sequence<I...>) {
  (r.add(kMfmaKinds[I].opcode, {mfma<I>, OperandForm::Matrix, flags_of(kMfmaKinds[I]), uint32_t(I)}), ...);
}

}  // namespace

void register_matrix(HandlerRegistry& r) {
  register_kinds(r, std::make_index_sequence<std::size(kMfmaKinds)>{});
}

}  // namespace cdna4::emu
