// v_mfma_f32_{16x16x32,32x32x16}_bf16 with the gfx950 lane layouts:
//   A (4 regs, 8 bf16 per lane): lane l, reg r, half h holds A[l % M][8*(l / M) + 2r + h]
//   B likewise with B[8*(l / N) + 2r + h][l % N]
//   C/D (M*N/64 regs): lane l, reg r holds D[i][l % N] with
//   16x16: i = 4*(l/16) + r;  32x32: i = 8*(r/4) + 4*(l/32) + r%4.
#include <fmt/format.h>

#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/mfma_arithmetic.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

inline float bf16_to_float(uint32_t half) { return as_float(half << 16); }

template <int M, int N, int K> void mfma_f32_bf16(Wave& w, const Inst& in) {
  constexpr int kGroups = kLanes / M;                 // lane groups along k
  constexpr int kOutRegs = M * N / kLanes;
  static_assert(K == 8 * kGroups);
  if (w.exec() != ~0ull)
    w.wg->fail(w, in, "MFMA with a partial EXEC mask is not modelled");
  if (in.src[0].kind != OperandKind::Vgpr || in.src[1].kind != OperandKind::Vgpr)
    w.wg->fail(w, in, "MFMA A/B operands other than registers are not modelled");
  alignas(32) float a[M * K], b[K * N], acc[M * N];
  for (int r = 0; r < 4; ++r) {
    const uint32_t* ra = w.v(in.src[0].index + r);
    const uint32_t* rb = w.v(in.src[1].index + r);
    for (int l = 0; l < kLanes; ++l) {
      uint32_t va = ra[l], vb = rb[l];
      int k0 = 8 * (l / M) + 2 * r;
      a[(l % M) * K + k0] = bf16_to_float(va & 0xffff);
      a[(l % M) * K + k0 + 1] = bf16_to_float(va >> 16);
      b[k0 * N + l % N] = bf16_to_float(vb & 0xffff);
      b[(k0 + 1) * N + l % N] = bf16_to_float(vb >> 16);
    }
  }
  auto row_of = [](int l, int r) { return 4 * kGroups * (r / 4) + 4 * (l / M) + r % 4; };
  const Operand& c = in.src[2];
  for (int r = 0; r < kOutRegs; ++r)
    for (int l = 0; l < kLanes; ++l)
      acc[row_of(l, r) * N + l % N] =
          c.kind == OperandKind::Vgpr ? as_float(w.v(c.index + r)[l]) : as_float(static_cast<uint32_t>(c.imm));
  mfma_fma_chain(M, N, K, a, b, acc);
  for (int r = 0; r < kOutRegs; ++r) {
    uint32_t* d = w.v(in.dst[0].index + r);
    for (int l = 0; l < kLanes; ++l) d[l] = as_bits(acc[row_of(l, r) * N + l % N]);
  }
  w.wg->mfma_macs += uint64_t(M) * N * K;
}

}  // namespace

void register_matrix(HandlerRegistry& r) {
  r.add("V_MFMA_F32_16X16X32_BF16", {mfma_f32_bf16<16, 16, 32>, OperandForm::Matrix, 0, 0});
  r.add("V_MFMA_F32_32X32X16_BF16", {mfma_f32_bf16<32, 32, 16>, OperandForm::Matrix, 0, 0});
}

}  // namespace cdna4::emu
