// VOP1 / VOP2 / VOP3 integer and bit operations (compares: ops_vector_compare.cpp).
#include <algorithm>
#include <bit>
#include <cstdint>

#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

template <auto F> void vop1(Wave& w, const Inst& in) {
  LaneValues a, r;
  fetch(w, in.src[0], a);
  for (int l = 0; l < kLanes; ++l) r[l] = F(a[l]);
  store_lanes(w, in.dst[0].index, r);
}
template <auto F> void vop2(Wave& w, const Inst& in) {
  LaneValues a, b, r;
  fetch(w, in.src[0], a);
  fetch(w, in.src[1], b);
  for (int l = 0; l < kLanes; ++l) r[l] = F(a[l], b[l]);
  store_lanes(w, in.dst[0].index, r);
}
template <auto F> void vop3(Wave& w, const Inst& in) {
  LaneValues a, b, c, r;
  fetch(w, in.src[0], a);
  fetch(w, in.src[1], b);
  fetch(w, in.src[2], c);
  for (int l = 0; l < kLanes; ++l) r[l] = F(a[l], b[l], c[l]);
  store_lanes(w, in.dst[0].index, r);
}

// Lane mask results (compares, carries) have 0 in inactive lanes.
void write_mask(Wave& w, const Operand& dst, uint64_t mask) { w.set_s64(dst.index, mask); }

// F(a, b, carry_in) -> 33-bit result: low 32 bits to dst[0], bit 32 to the dst[1] mask.
template <auto F, bool kCarryIn> void vop_carry(Wave& w, const Inst& in) {
  LaneValues a, b, r;
  fetch(w, in.src[0], a);
  fetch(w, in.src[1], b);
  uint64_t carry_in = kCarryIn ? scalar_u64(w, in.src[2]) : 0;
  uint64_t exec = w.exec(), carry_out = 0;
  for (int l = 0; l < kLanes; ++l) {
    uint64_t v = F(uint64_t(a[l]), uint64_t(b[l]), (carry_in >> l) & 1);
    r[l] = uint32_t(v);
    carry_out |= uint64_t((v >> 32) & 1) << l;
  }
  store_lanes(w, in.dst[0].index, r);
  write_mask(w, in.dst[1], carry_out & exec);
}

void v_cndmask_b32(Wave& w, const Inst& in) {
  LaneValues a, b, r;
  fetch(w, in.src[0], a);
  fetch(w, in.src[1], b);
  uint64_t select = scalar_u64(w, in.src[2]);
  for (int l = 0; l < kLanes; ++l) r[l] = ((select >> l) & 1) ? b[l] : a[l];
  store_lanes(w, in.dst[0].index, r);
}

void v_readfirstlane_b32(Wave& w, const Inst& in) {
  LaneValues a;
  fetch(w, in.src[0], a);
  uint64_t exec = w.exec();
  w.sgpr[in.dst[0].index] = a[exec ? std::countr_zero(exec) : 0];
}
void v_readlane_b32(Wave& w, const Inst& in) {
  LaneValues a;
  fetch(w, in.src[0], a);
  w.sgpr[in.dst[0].index] = a[scalar_u32(w, in.src[1]) & 63];
}
void v_writelane_b32(Wave& w, const Inst& in) {
  w.v(in.dst[0].index)[scalar_u32(w, in.src[1]) & 63] = scalar_u32(w, in.src[0]);
}

// 64-bit lane values: dwords 0 and 1 of a source.
void fetch64(const Wave& w, const Operand& o, uint64_t* out) {
  LaneValues lo, hi;
  fetch(w, o, lo, 0);
  if (o.kind == OperandKind::Imm) {
    for (int l = 0; l < kLanes; ++l) out[l] = o.imm;
    return;
  }
  fetch(w, o, hi, 1);
  for (int l = 0; l < kLanes; ++l) out[l] = lo[l] | (uint64_t(hi[l]) << 32);
}
void store64(Wave& w, uint32_t reg, const uint64_t* v) {
  LaneValues lo, hi;
  for (int l = 0; l < kLanes; ++l) {
    lo[l] = uint32_t(v[l]);
    hi[l] = uint32_t(v[l] >> 32);
  }
  store_lanes(w, reg, lo);
  store_lanes(w, reg + 1, hi);
}

void v_mov_b64(Wave& w, const Inst& in) {
  uint64_t a[kLanes];
  fetch64(w, in.src[0], a);
  store64(w, in.dst[0].index, a);
}
template <bool kLeft> void v_shift_b64(Wave& w, const Inst& in) {
  LaneValues s;
  uint64_t a[kLanes], r[kLanes];
  fetch(w, in.src[0], s);
  fetch64(w, in.src[1], a);
  for (int l = 0; l < kLanes; ++l) r[l] = kLeft ? a[l] << (s[l] & 63) : a[l] >> (s[l] & 63);
  store64(w, in.dst[0].index, r);
}
void v_lshl_add_u64(Wave& w, const Inst& in) {
  LaneValues s;
  uint64_t a[kLanes], c[kLanes], r[kLanes];
  fetch64(w, in.src[0], a);
  fetch(w, in.src[1], s);
  fetch64(w, in.src[2], c);
  for (int l = 0; l < kLanes; ++l) r[l] = (a[l] << (s[l] & 7)) + c[l];
  store64(w, in.dst[0].index, r);
}
template <bool kSigned> void v_mad_64_32(Wave& w, const Inst& in) {
  LaneValues a, b;
  uint64_t c[kLanes], r[kLanes];
  fetch(w, in.src[0], a);
  fetch(w, in.src[1], b);
  fetch64(w, in.src[2], c);
  uint64_t exec = w.exec(), carry = 0;
  for (int l = 0; l < kLanes; ++l) {
    unsigned __int128 p;
    if (kSigned) p = (unsigned __int128)((__int128)(int64_t(int32_t(a[l])) * int32_t(b[l])) + (__int128)int64_t(c[l]));
    else p = (unsigned __int128)(uint64_t(a[l]) * b[l]) + c[l];
    r[l] = uint64_t(p);
    carry |= uint64_t((p >> 64) != 0) << l;
  }
  store64(w, in.dst[0].index, r);
  if (in.dst[1].kind == OperandKind::Sgpr) write_mask(w, in.dst[1], carry & exec);
}

uint32_t bfe_u(uint32_t v, uint32_t off, uint32_t width) {
  off &= 31;
  width &= 31;
  return width == 0 ? 0 : (v >> off) & ((1u << width) - 1);
}
uint32_t bfe_i(uint32_t v, uint32_t off, uint32_t width) {
  width &= 31;
  if (width == 0) return 0;
  uint32_t r = bfe_u(v, off, width), sign = 1u << (width - 1);
  return (r ^ sign) - sign;
}
// v_perm_b32: byte selectors over {src0, src1} (src1 is bytes 0-3).
uint32_t perm(uint32_t s0, uint32_t s1, uint32_t sel) {
  uint64_t bytes = (uint64_t(s0) << 32) | s1;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t s = (sel >> (8 * i)) & 0xff, b;
    if (s < 8) b = (bytes >> (8 * s)) & 0xff;
    else if (s < 12) b = ((bytes >> (16 * (s - 8) + 15)) & 1) ? 0xff : 0;
    else if (s == 12) b = 0;
    else b = 0xff;
    r |= b << (8 * i);
  }
  return r;
}
// v_add_i32 / v_sub_i32 (VOP3 only): wrap-around, or signed saturation with clamp.
template <bool kSubtract> void v_addsub_i32(Wave& w, const Inst& in) {
  LaneValues a, b, r;
  fetch(w, in.src[0], a);
  fetch(w, in.src[1], b);
  for (int l = 0; l < kLanes; ++l) {
    const int64_t x = int32_t(a[l]), y = int32_t(b[l]);
    int64_t v = kSubtract ? x - y : x + y;
    if (in.clamp) v = std::clamp<int64_t>(v, INT32_MIN, INT32_MAX);
    r[l] = uint32_t(v);
  }
  store_lanes(w, in.dst[0].index, r);
}

uint32_t u24(uint32_t v) { return v & 0xffffff; }
int32_t i24(uint32_t v) { return int32_t(v << 8) >> 8; }

using Entry = VectorOpEntry;

const Entry kVectorIntegerOps[] = {
    {"V_MOV_B32", vop1<([](uint32_t a) { return a; })>, 0},
    {"V_ACCVGPR_WRITE_B32", vop1<([](uint32_t a) { return a; })>, 0},
    {"V_ACCVGPR_READ_B32", vop1<([](uint32_t a) { return a; })>, 0},
    {"V_ACCVGPR_MOV_B32", vop1<([](uint32_t a) { return a; })>, 0},
    {"V_NOT_B32", vop1<([](uint32_t a) { return ~a; })>, 0},
    {"V_BFREV_B32", vop1<([](uint32_t a) {
       uint32_t r = 0;
       for (int i = 0; i < 32; ++i) r |= ((a >> i) & 1u) << (31 - i);
       return r;
     })>, 0},
    {"V_ADD_U32", vop2<([](uint32_t a, uint32_t b) { return a + b; })>, 0},
    {"V_SUB_U32", vop2<([](uint32_t a, uint32_t b) { return a - b; })>, 0},
    {"V_SUBREV_U32", vop2<([](uint32_t a, uint32_t b) { return b - a; })>, 0},
    {"V_MUL_LO_U32", vop2<([](uint32_t a, uint32_t b) { return a * b; })>, 0},
    {"V_MUL_HI_U32", vop2<([](uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); })>, 0},
    {"V_MUL_HI_I32", vop2<([](uint32_t a, uint32_t b) {
       return uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32);
     })>, 0},
    {"V_MUL_U32_U24", vop2<([](uint32_t a, uint32_t b) { return u24(a) * u24(b); })>, 0},
    {"V_MUL_I32_I24", vop2<([](uint32_t a, uint32_t b) { return uint32_t(int64_t(i24(a)) * i24(b)); })>, 0},
    {"V_MUL_HI_U32_U24", vop2<([](uint32_t a, uint32_t b) { return uint32_t((uint64_t(u24(a)) * u24(b)) >> 32); })>, 0},
    {"V_LSHLREV_B32", vop2<([](uint32_t a, uint32_t b) { return b << (a & 31); })>, 0},
    {"V_LSHRREV_B32", vop2<([](uint32_t a, uint32_t b) { return b >> (a & 31); })>, 0},
    {"V_ASHRREV_I32", vop2<([](uint32_t a, uint32_t b) { return uint32_t(int32_t(b) >> (a & 31)); })>, 0},
    {"V_AND_B32", vop2<([](uint32_t a, uint32_t b) { return a & b; })>, 0},
    {"V_OR_B32", vop2<([](uint32_t a, uint32_t b) { return a | b; })>, 0},
    {"V_XOR_B32", vop2<([](uint32_t a, uint32_t b) { return a ^ b; })>, 0},
    {"V_MIN_U32", vop2<([](uint32_t a, uint32_t b) { return a < b ? a : b; })>, 0},
    {"V_MAX_U32", vop2<([](uint32_t a, uint32_t b) { return a > b ? a : b; })>, 0},
    {"V_MIN_I32", vop2<([](uint32_t a, uint32_t b) { return int32_t(a) < int32_t(b) ? a : b; })>, 0},
    {"V_MAX_I32", vop2<([](uint32_t a, uint32_t b) { return int32_t(a) > int32_t(b) ? a : b; })>, 0},
    {"V_BFM_B32", vop2<([](uint32_t a, uint32_t b) { return uint32_t(((1ull << (a & 31)) - 1) << (b & 31)); })>, 0},
    {"V_MAD_U32_U24", vop3<([](uint32_t a, uint32_t b, uint32_t c) { return u24(a) * u24(b) + c; })>, 0},
    {"V_MAD_I32_I24", vop3<([](uint32_t a, uint32_t b, uint32_t c) { return uint32_t(int64_t(i24(a)) * i24(b)) + c; })>, 0},
    {"V_LSHL_ADD_U32", vop3<([](uint32_t a, uint32_t b, uint32_t c) { return (a << (b & 31)) + c; })>, 0},
    {"V_ADD_LSHL_U32", vop3<([](uint32_t a, uint32_t b, uint32_t c) { return (a + b) << (c & 31); })>, 0},
    {"V_LSHL_OR_B32", vop3<([](uint32_t a, uint32_t b, uint32_t c) { return (a << (b & 31)) | c; })>, 0},
    {"V_AND_OR_B32", vop3<([](uint32_t a, uint32_t b, uint32_t c) { return (a & b) | c; })>, 0},
    {"V_OR3_B32", vop3<([](uint32_t a, uint32_t b, uint32_t c) { return a | b | c; })>, 0},
    {"V_ADD3_U32", vop3<([](uint32_t a, uint32_t b, uint32_t c) { return a + b + c; })>, 0},
    {"V_XAD_U32", vop3<([](uint32_t a, uint32_t b, uint32_t c) { return (a ^ b) + c; })>, 0},
    {"V_BFE_U32", vop3<bfe_u>, 0},
    {"V_BFE_I32", vop3<bfe_i>, 0},
    {"V_BFI_B32", vop3<([](uint32_t a, uint32_t b, uint32_t c) { return (a & b) | (~a & c); })>, 0},
    {"V_PERM_B32", vop3<perm>, 0},
    {"V_ADD_I32", v_addsub_i32<false>, hflag::kIntegerClamp},
    {"V_SUB_I32", v_addsub_i32<true>, hflag::kIntegerClamp},
    {"V_CNDMASK_B32", v_cndmask_b32, hflag::kImplicitVccIn},
    {"V_ADD_CO_U32", vop_carry<([](uint64_t a, uint64_t b, uint64_t) { return a + b; }), false>, hflag::kImplicitVccOut},
    {"V_SUB_CO_U32", vop_carry<([](uint64_t a, uint64_t b, uint64_t) { return a - b; }), false>, hflag::kImplicitVccOut},
    {"V_SUBREV_CO_U32", vop_carry<([](uint64_t a, uint64_t b, uint64_t) { return b - a; }), false>, hflag::kImplicitVccOut},
    {"V_ADDC_CO_U32", vop_carry<([](uint64_t a, uint64_t b, uint64_t c) { return a + b + c; }), true>,
     hflag::kImplicitVccOut | hflag::kImplicitVccIn},
    {"V_SUBB_CO_U32", vop_carry<([](uint64_t a, uint64_t b, uint64_t c) { return a - b - c; }), true>,
     hflag::kImplicitVccOut | hflag::kImplicitVccIn},
    {"V_SUBBREV_CO_U32", vop_carry<([](uint64_t a, uint64_t b, uint64_t c) { return b - a - c; }), true>,
     hflag::kImplicitVccOut | hflag::kImplicitVccIn},
    {"V_READFIRSTLANE_B32", v_readfirstlane_b32, 0},
    {"V_READLANE_B32", v_readlane_b32, 0},
    {"V_WRITELANE_B32", v_writelane_b32, 0},
    {"V_MOV_B64", v_mov_b64, 0},
    {"V_LSHLREV_B64", v_shift_b64<true>, 0},
    {"V_LSHRREV_B64", v_shift_b64<false>, 0},
    {"V_LSHL_ADD_U64", v_lshl_add_u64, 0},
    {"V_MAD_U64_U32", v_mad_64_32<false>, 0},
    {"V_MAD_I64_I32", v_mad_64_32<true>, 0},
};

}  // namespace

void register_vector_integer(HandlerRegistry& r) { add_vector_ops(r, kVectorIntegerOps); }

}  // namespace cdna4::emu
