// VALU operations new in gfx950: v_bitop3_b32/b16 and v_permlane{16,32}_swap_b32.
// Operand form VectorControl: Inst.offset holds the control immediates, one byte
// each in LLVM's operand order (bitop3: table; swaps: fi, bound_ctrl), and
// op_sel is decoded into the operands (packed_sel::kHalfHigh).
#include <utility>

#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

// Truth table: bit (s0 << 2 | s1 << 1 | s2) of `table` is the result for that
// combination of source bits, so 0xf0 = src0, 0xcc = src1, 0xaa = src2.
uint32_t bitop3(uint32_t table, uint32_t s0, uint32_t s1, uint32_t s2) {
  uint32_t r = 0;
  for (uint32_t row = 0; row < 8; ++row)
    if ((table >> row) & 1) r |= ((row & 4) ? s0 : ~s0) & ((row & 2) ? s1 : ~s1) & ((row & 1) ? s2 : ~s2);
  return r;
}

void v_bitop3_b32(Wave& w, const Inst& in) {
  LaneValues a, b, c, r;
  fetch(w, in.src[0], a);
  fetch(w, in.src[1], b);
  fetch(w, in.src[2], c);
  const uint32_t table = in.offset & 0xff;
  for (int l = 0; l < kLanes; ++l) r[l] = bitop3(table, a[l], b[l], c[l]);
  store_lanes(w, in.dst[0].index, r);
}

// op_sel bit s (s < 3) reads source s's high half; bit 3 writes the result to
// the destination's high half. The other destination half keeps its value.
void v_bitop3_b16(Wave& w, const Inst& in) {
  LaneValues a, b, c, r;
  fetch(w, in.src[0], a);
  fetch(w, in.src[1], b);
  fetch(w, in.src[2], c);
  const uint32_t table = in.offset & 0xff;
  auto half = [&](uint32_t v, int s) { return (in.src[s].packed & packed_sel::kHalfHigh) ? v >> 16 : v & 0xffff; };
  const bool high = in.dst[0].packed & packed_sel::kHalfHigh;
  const uint32_t* old = w.v(in.dst[0].index);
  for (int l = 0; l < kLanes; ++l) {
    const uint32_t v = bitop3(table, half(a[l], 0), half(b[l], 1), half(c[l], 2)) & 0xffff;
    r[l] = with_half(old[l], v, high);
  }
  store_lanes(w, in.dst[0].index, r);
}

// Lane l of vdst with (l / kStride) odd trades values with lane l - kStride of
// src0: 16 swaps vdst rows 1, 3 with src0 rows 0, 2; 32 swaps vdst lanes 32-63
// with src0 lanes 0-31. With every lane active, fi and bound_ctrl change nothing.
template <int kStride> void v_permlane_swap(Wave& w, const Inst& in) {
  if (w.exec() != ~0ull) w.wg->fail(w, in, "v_permlane*_swap with a partial EXEC mask is not modelled");
  if (in.dst[0].index == in.dst[1].index) w.wg->fail(w, in, "v_permlane*_swap of a register with itself is not modelled");
  LaneValues vdst, src0;
  fetch(w, in.src[0], vdst);
  fetch(w, in.src[1], src0);
  for (int l = 0; l < kLanes; ++l)
    if ((l / kStride) % 2 == 1) std::swap(vdst[l], src0[l - kStride]);
  store_lanes(w, in.dst[0].index, vdst);
  store_lanes(w, in.dst[1].index, src0);
}

}  // namespace

void register_vector_gfx950(HandlerRegistry& r) {
  r.add("V_BITOP3_B32", {v_bitop3_b32, OperandForm::VectorControl, 0, 0});
  r.add("V_BITOP3_B16", {v_bitop3_b16, OperandForm::VectorControl, 0, 0});
  r.add("V_PERMLANE16_SWAP_B32", {v_permlane_swap<16>, OperandForm::VectorControl, 0, 0});
  r.add("V_PERMLANE32_SWAP_B32", {v_permlane_swap<32>, OperandForm::VectorControl, 0, 0});
}

}  // namespace cdna4::emu
