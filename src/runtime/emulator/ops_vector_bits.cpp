// VOP3 integer operations on lane numbers and bit fields: v_mbcnt_lo/hi_u32_b32,
// v_alignbit_b32 / v_alignbyte_b32 in every encoding LLVM decodes for gfx950, and
// v_mul_hi_i32_i24; and v_nop.
#include <bit>
#include <cstdint>

#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

// D = S1 + the number of set bits of S0 below this lane: lanes 0-31 of the mask
// for _lo, lanes 32-63 for _hi ((1 << lane) - 1, low or high dword, & S0).
template <bool kHigh> void v_mbcnt(Wave& w, const Inst& in) {
  LaneValues a, b, r;
  fetch(w, in.src[0], a);
  fetch(w, in.src[1], b);
  for (int l = 0; l < kLanes; ++l) {
    const uint64_t below = (uint64_t(1) << l) - 1;
    const uint32_t mask = uint32_t(kHigh ? below >> 32 : below);
    r[l] = b[l] + uint32_t(std::popcount(a[l] & mask));
  }
  store_lanes(w, in.dst[0].index, r);
}

// {S0, S1} >> shift, low 32 bits; the shift is S2[4:0] (bit) or 8 * S2[1:0]
// (byte). LLVM decodes every gfx950 form as the op_sel one (S2 a 16-bit operand):
// op_sel[2] takes the shift from S2's high half; op_sel on S0, S1 or the
// destination is refused at decode (what it would do to 32-bit operands is not
// documented).
template <bool kBytes> void v_align(Wave& w, const Inst& in) {
  LaneValues a, b, c, r;
  fetch(w, in.src[0], a);
  fetch(w, in.src[1], b);
  fetch(w, in.src[2], c);
  const int half = (in.src[2].packed & packed_sel::kHalfHigh) ? 16 : 0;
  for (int l = 0; l < kLanes; ++l) {
    const uint32_t s = c[l] >> half, shift = kBytes ? 8 * (s & 3) : s & 31;
    r[l] = uint32_t(((uint64_t(a[l]) << 32) | b[l]) >> shift);
  }
  store_lanes(w, in.dst[0].index, r);
}

// High 32 bits of the 48-bit product of two signed 24-bit values.
void v_mul_hi_i32_i24(Wave& w, const Inst& in) {
  LaneValues a, b, r;
  fetch(w, in.src[0], a);
  fetch(w, in.src[1], b);
  auto i24 = [](uint32_t v) { return int64_t(int32_t(v << 8) >> 8); };
  for (int l = 0; l < kLanes; ++l) r[l] = uint32_t(uint64_t(i24(a[l]) * i24(b[l])) >> 32);
  store_lanes(w, in.dst[0].index, r);
}

void v_nop(Wave&, const Inst&) {}

constexpr uint16_t kShiftHalf = hflag::kOpSelShiftSource;

const VectorOpEntry kBitOps[] = {
    {"V_MBCNT_LO_U32_B32", v_mbcnt<false>, 0},
    {"V_MBCNT_HI_U32_B32", v_mbcnt<true>, 0},
    {"V_ALIGNBIT_B32", v_align<false>, kShiftHalf},
    {"V_ALIGNBIT_B32_opsel", v_align<false>, kShiftHalf},
    {"V_ALIGNBYTE_B32", v_align<true>, kShiftHalf},
    {"V_ALIGNBYTE_B32_opsel", v_align<true>, kShiftHalf},
    {"V_MUL_HI_I32_I24", v_mul_hi_i32_i24, 0},
    {"V_NOP", v_nop, 0},
};

}  // namespace

void register_vector_bits(HandlerRegistry& r) { add_vector_ops(r, kBitOps); }

}  // namespace cdna4::emu
