// 16-bit integer VALU operations (VOP2 and VOP3), as the CDNA3 / CDNA4 ISA guides
// define them: operands are the low 16 bits of the sources, shifts take S0[3:0],
// and the result wraps to 16 bits, or saturates to the u16 / i16 range with clamp.
// The destination's high half: the VOP2-family operations (and the VOP3 encodings
// of them, v_mad_legacy_u16 / i16) write the result zero-extended to 32 bits, as
// every gfx9 target does (LLVM's GCNSubtarget::zeroesHigh16BitsOfDest lists them
// for generations up to GFX9). The gfx9 op_sel encodings (v_mad_u16 / i16,
// v_add_i16 / v_sub_i16) read op_sel[s]'s half of source s and write the half
// op_sel[3] names, keeping the other half (they are not on that list).
// SDWA and DPP forms run these handlers on operands the lane modifiers prepared.
#include <algorithm>
#include <cstdint>

#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

// The 16-bit value's range (saturation) and how its bits extend (operands).
struct U16 {
  static constexpr int64_t kMin = 0, kMax = 0xffff;
  static int64_t extend(uint32_t h) { return h & 0xffff; }
};
struct I16 {
  static constexpr int64_t kMin = -0x8000, kMax = 0x7fff;
  static int64_t extend(uint32_t h) { return int16_t(h & 0xffff); }
};

// The exact result of each operation on extended 16-bit operands.
int64_t add(int64_t a, int64_t b, int64_t) { return a + b; }
int64_t sub(int64_t a, int64_t b, int64_t) { return a - b; }
int64_t subrev(int64_t a, int64_t b, int64_t) { return b - a; }
int64_t mul(int64_t a, int64_t b, int64_t) { return a * b; }
int64_t mad(int64_t a, int64_t b, int64_t c) { return a * b + c; }
int64_t shl(int64_t a, int64_t b, int64_t) { return b << (a & 15); }
int64_t shr(int64_t a, int64_t b, int64_t) { return b >> (a & 15); }  // U16: logical, I16: arithmetic
int64_t max(int64_t a, int64_t b, int64_t) { return std::max(a, b); }
int64_t min(int64_t a, int64_t b, int64_t) { return std::min(a, b); }

template <class T> uint32_t to_u16(int64_t v, bool clamp) {
  return uint32_t(clamp ? std::clamp(v, T::kMin, T::kMax) : v) & 0xffffu;
}

// VOP2 family (and their VOP3 forms): low halves in, result zero-extended.
template <class T, auto Op, int kSources> void zero_high(Wave& w, const Inst& in) {
  LaneValues a, b, c, r;
  fetch(w, in.src[0], a);
  fetch(w, in.src[1], b);
  if constexpr (kSources == 3) fetch(w, in.src[2], c);
  const bool clamp = in.clamp;
  for (int l = 0; l < kLanes; ++l)
    r[l] = to_u16<T>(Op(T::extend(a[l]), T::extend(b[l]), kSources == 3 ? T::extend(c[l]) : 0), clamp);
  store_lanes(w, in.dst[0].index, r);
}

// gfx9 op_sel encodings: each source's selected half in, the selected destination half out.
template <class T, auto Op, int kSources> void select_halves(Wave& w, const Inst& in) {
  LaneValues a, b, c, r;
  fetch(w, in.src[0], a);
  fetch(w, in.src[1], b);
  if constexpr (kSources == 3) fetch(w, in.src[2], c);
  auto shift_of = [&](int s) { return (in.src[s].packed & packed_sel::kHalfHigh) ? 16 : 0; };
  const int sa = shift_of(0), sb = shift_of(1), sc = kSources == 3 ? shift_of(2) : 0;
  const bool clamp = in.clamp, high = in.dst[0].packed & packed_sel::kHalfHigh;
  const uint32_t* old = w.v(in.dst[0].index);
  for (int l = 0; l < kLanes; ++l) {
    const int64_t x = T::extend(a[l] >> sa), y = T::extend(b[l] >> sb), z = kSources == 3 ? T::extend(c[l] >> sc) : 0;
    const uint32_t h = to_u16<T>(Op(x, y, z), clamp);
    r[l] = with_half(old[l], h, high);
  }
  store_lanes(w, in.dst[0].index, r);
}

constexpr uint16_t kClamp = hflag::kIntegerClamp;
constexpr uint16_t kOpSelClamp = hflag::kIntegerClamp | hflag::kOpSelSources | hflag::kOpSelDestination;

const VectorOpEntry kInteger16Ops[] = {
    {"V_ADD_U16", zero_high<U16, add, 2>, kClamp},
    {"V_SUB_U16", zero_high<U16, sub, 2>, kClamp},
    {"V_SUBREV_U16", zero_high<U16, subrev, 2>, kClamp},
    {"V_MUL_LO_U16", zero_high<U16, mul, 2>, 0},
    {"V_LSHLREV_B16", zero_high<U16, shl, 2>, 0},
    {"V_LSHRREV_B16", zero_high<U16, shr, 2>, 0},
    {"V_ASHRREV_I16", zero_high<I16, shr, 2>, 0},
    {"V_MAX_U16", zero_high<U16, max, 2>, 0},
    {"V_MAX_I16", zero_high<I16, max, 2>, 0},
    {"V_MIN_U16", zero_high<U16, min, 2>, 0},
    {"V_MIN_I16", zero_high<I16, min, 2>, 0},
    {"V_MAD_LEGACY_U16", zero_high<U16, mad, 3>, kClamp},
    {"V_MAD_LEGACY_I16", zero_high<I16, mad, 3>, kClamp},
    {"V_MAD_U16", select_halves<U16, mad, 3>, kOpSelClamp},
    {"V_MAD_I16", select_halves<I16, mad, 3>, kOpSelClamp},
    {"V_ADD_I16", select_halves<I16, add, 2>, kOpSelClamp},
    {"V_SUB_I16", select_halves<I16, sub, 2>, kOpSelClamp},
};

}  // namespace

void register_vector_integer16(HandlerRegistry& r) { add_vector_ops(r, kInteger16Ops); }

}  // namespace cdna4::emu
