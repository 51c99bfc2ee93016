// SOP1 / SOP2 / SOPC / SOPK.
#include <bit>

#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

constexpr int kKeep = -1;  // SCC unchanged
struct Result {
  uint64_t value;
  int scc;
};

Result nonzero32(uint32_t v) { return {v, v != 0}; }
Result nonzero64(uint64_t v) { return {v, v != 0}; }

uint32_t bfe_u32(uint32_t v, uint32_t ctl) {
  uint32_t offset = ctl & 31, width = (ctl >> 16) & 0x7f;
  if (width == 0) return 0;
  uint64_t r = uint64_t(v) >> offset;
  return width >= 32 ? uint32_t(r) : uint32_t(r & ((1ull << width) - 1));
}
int32_t bfe_i32(uint32_t v, uint32_t ctl) {
  uint32_t width = (ctl >> 16) & 0x7f;
  uint32_t r = bfe_u32(v, ctl);
  if (width == 0 || width >= 32) return int32_t(r);
  uint32_t sign = 1u << (width - 1);
  return int32_t((r ^ sign) - sign);
}

// 64-bit field extract: offset S1[5:0], width S1[22:16] (widths of 64 and up keep every bit).
uint64_t bfe_u64(uint64_t v, uint32_t ctl) {
  uint32_t offset = ctl & 63, width = (ctl >> 16) & 0x7f;
  if (width == 0) return 0;
  uint64_t r = v >> offset;
  return width >= 64 ? r : r & ((1ull << width) - 1);
}
int64_t bfe_i64(uint64_t v, uint32_t ctl) {
  uint32_t width = (ctl >> 16) & 0x7f;
  uint64_t r = bfe_u64(v, ctl);
  if (width == 0 || width >= 64) return int64_t(r);
  uint64_t sign = 1ull << (width - 1);
  return int64_t((r ^ sign) - sign);
}
uint64_t mask64(uint32_t bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

// Two 32-bit sources (SOP2 32-bit).
template <auto F> void sop2_32(Wave& w, const Inst& in) {
  Result r = F(scalar_u32(w, in.src[0]), scalar_u32(w, in.src[1]), w.scc);
  write_scalar(w, in.dst[0], uint32_t(r.value));
  if (r.scc != kKeep) w.scc = r.scc;
}
// 64-bit first source, 32- or 64-bit second (SOP2 64-bit logic and shifts).
template <auto F> void sop2_64(Wave& w, const Inst& in) {
  Result r = F(scalar_u64(w, in.src[0]), scalar_u64(w, in.src[1]), w.scc);
  write_scalar64(w, in.dst[0], r.value);
  if (r.scc != kKeep) w.scc = r.scc;
}
template <auto F> void sop1_32(Wave& w, const Inst& in) {
  Result r = F(scalar_u32(w, in.src[0]), w.scc);
  write_scalar(w, in.dst[0], uint32_t(r.value));
  if (r.scc != kKeep) w.scc = r.scc;
}
template <auto F> void sop1_64(Wave& w, const Inst& in) {
  Result r = F(scalar_u64(w, in.src[0]), w.scc);
  write_scalar64(w, in.dst[0], r.value);
  if (r.scc != kKeep) w.scc = r.scc;
}
template <auto F> void sopc_32(Wave& w, const Inst& in) { w.scc = F(scalar_u32(w, in.src[0]), scalar_u32(w, in.src[1])); }
template <auto F> void sopc_64(Wave& w, const Inst& in) { w.scc = F(scalar_u64(w, in.src[0]), scalar_u64(w, in.src[1])); }
// SOPK compare: register against the 16-bit immediate (sign- or zero-extended).
template <auto F, bool kSigned> void sopk_cmp(Wave& w, const Inst& in) {
  uint32_t imm = kSigned ? uint32_t(int32_t(int16_t(in.offset))) : uint32_t(uint16_t(in.offset));
  w.scc = F(scalar_u32(w, in.src[0]), imm);
}

// v_*_saveexec: dst = EXEC; EXEC = op(src, EXEC); SCC = EXEC != 0.
template <auto F> void saveexec(Wave& w, const Inst& in) {
  uint64_t old = w.exec();
  uint64_t exec = F(scalar_u64(w, in.src[0]), old);
  write_scalar64(w, in.dst[0], old);
  w.set_s64(sreg::kExecLo, exec);
  w.scc = exec != 0;
}

void s_movk_i32(Wave& w, const Inst& in) { write_scalar(w, in.dst[0], uint32_t(int32_t(int16_t(in.offset)))); }
void s_cmovk_i32(Wave& w, const Inst& in) {
  if (w.scc) write_scalar(w, in.dst[0], uint32_t(int32_t(int16_t(in.offset))));
}
void s_addk_i32(Wave& w, const Inst& in) {
  int32_t a = int32_t(scalar_u32(w, in.src[0])), b = int16_t(in.offset);
  int32_t r = int32_t(uint32_t(a) + uint32_t(b));
  w.scc = ((a >= 0) == (b >= 0)) && ((r >= 0) != (a >= 0));
  write_scalar(w, in.dst[0], uint32_t(r));
}
void s_mulk_i32(Wave& w, const Inst& in) {
  write_scalar(w, in.dst[0], scalar_u32(w, in.src[0]) * uint32_t(int32_t(int16_t(in.offset))));
}

bool signed_add_overflows(uint32_t a, uint32_t b, uint32_t r) { return (~(a ^ b) & (a ^ r)) >> 31; }
bool signed_sub_overflows(uint32_t a, uint32_t b, uint32_t r) { return ((a ^ b) & (a ^ r)) >> 31; }

// S_BITSET0 / S_BITSET1: the destination with bit S0[4:0] (b64: S0[5:0]) cleared or set; SCC kept.
template <bool kSet> void s_bitset_b32(Wave& w, const Inst& in) {
  const uint32_t bit = 1u << (scalar_u32(w, in.src[0]) & 31), old = w.sgpr[in.dst[0].index];
  write_scalar(w, in.dst[0], kSet ? old | bit : old & ~bit);
}
template <bool kSet> void s_bitset_b64(Wave& w, const Inst& in) {
  const uint64_t bit = 1ull << (scalar_u32(w, in.src[0]) & 63), old = w.s64(in.dst[0].index);
  write_scalar64(w, in.dst[0], kSet ? old | bit : old & ~bit);
}
template <int N> Result lshl_add(uint32_t a, uint32_t b, bool) {
  uint64_t r = (uint64_t(a) << N) + b;
  return {uint32_t(r), (r >> 32) != 0};
}

struct Entry {
  const char* name;
  Handler fn;
};

const Entry kScalarOps[] = {
    // SOP2, 32-bit
    {"S_ADD_U32", sop2_32<([](uint32_t a, uint32_t b, bool) { return Result{uint32_t(a + b), uint32_t(a + b) < a}; })>},
    {"S_SUB_U32", sop2_32<([](uint32_t a, uint32_t b, bool) { return Result{uint32_t(a - b), b > a}; })>},
    {"S_ADD_I32", sop2_32<([](uint32_t a, uint32_t b, bool) { return Result{a + b, signed_add_overflows(a, b, a + b)}; })>},
    {"S_SUB_I32", sop2_32<([](uint32_t a, uint32_t b, bool) { return Result{a - b, signed_sub_overflows(a, b, a - b)}; })>},
    {"S_ADDC_U32", sop2_32<([](uint32_t a, uint32_t b, bool c) {
       uint64_t r = uint64_t(a) + b + c;
       return Result{uint32_t(r), (r >> 32) != 0};
     })>},
    {"S_SUBB_U32", sop2_32<([](uint32_t a, uint32_t b, bool c) {
       return Result{uint32_t(a - b - c), uint64_t(b) + c > a};
     })>},
    {"S_MIN_U32", sop2_32<([](uint32_t a, uint32_t b, bool) { return Result{a < b ? a : b, a < b}; })>},
    {"S_MAX_U32", sop2_32<([](uint32_t a, uint32_t b, bool) { return Result{a > b ? a : b, a > b}; })>},
    {"S_MIN_I32", sop2_32<([](uint32_t a, uint32_t b, bool) {
       return Result{int32_t(a) < int32_t(b) ? a : b, int32_t(a) < int32_t(b)};
     })>},
    {"S_MAX_I32", sop2_32<([](uint32_t a, uint32_t b, bool) {
       return Result{int32_t(a) > int32_t(b) ? a : b, int32_t(a) > int32_t(b)};
     })>},
    {"S_CSELECT_B32", sop2_32<([](uint32_t a, uint32_t b, bool c) { return Result{c ? a : b, kKeep}; })>},
    {"S_AND_B32", sop2_32<([](uint32_t a, uint32_t b, bool) { return nonzero32(a & b); })>},
    {"S_OR_B32", sop2_32<([](uint32_t a, uint32_t b, bool) { return nonzero32(a | b); })>},
    {"S_XOR_B32", sop2_32<([](uint32_t a, uint32_t b, bool) { return nonzero32(a ^ b); })>},
    {"S_ANDN2_B32", sop2_32<([](uint32_t a, uint32_t b, bool) { return nonzero32(a & ~b); })>},
    {"S_ORN2_B32", sop2_32<([](uint32_t a, uint32_t b, bool) { return nonzero32(a | ~b); })>},
    {"S_NAND_B32", sop2_32<([](uint32_t a, uint32_t b, bool) { return nonzero32(~(a & b)); })>},
    {"S_NOR_B32", sop2_32<([](uint32_t a, uint32_t b, bool) { return nonzero32(~(a | b)); })>},
    {"S_XNOR_B32", sop2_32<([](uint32_t a, uint32_t b, bool) { return nonzero32(~(a ^ b)); })>},
    {"S_LSHL_B32", sop2_32<([](uint32_t a, uint32_t b, bool) { return nonzero32(a << (b & 31)); })>},
    {"S_LSHR_B32", sop2_32<([](uint32_t a, uint32_t b, bool) { return nonzero32(a >> (b & 31)); })>},
    {"S_ASHR_I32", sop2_32<([](uint32_t a, uint32_t b, bool) { return nonzero32(uint32_t(int32_t(a) >> (b & 31))); })>},
    {"S_BFM_B32", sop2_32<([](uint32_t a, uint32_t b, bool) {
       return Result{uint32_t(((1ull << (a & 31)) - 1) << (b & 31)), kKeep};
     })>},
    {"S_MUL_I32", sop2_32<([](uint32_t a, uint32_t b, bool) { return Result{a * b, kKeep}; })>},
    {"S_MUL_HI_U32", sop2_32<([](uint32_t a, uint32_t b, bool) { return Result{uint32_t((uint64_t(a) * b) >> 32), kKeep}; })>},
    {"S_MUL_HI_I32", sop2_32<([](uint32_t a, uint32_t b, bool) {
       return Result{uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32), kKeep};
     })>},
    {"S_BFE_U32", sop2_32<([](uint32_t a, uint32_t b, bool) { return nonzero32(bfe_u32(a, b)); })>},
    {"S_BFE_I32", sop2_32<([](uint32_t a, uint32_t b, bool) { return nonzero32(uint32_t(bfe_i32(a, b))); })>},
    {"S_PACK_LL_B32_B16", sop2_32<([](uint32_t a, uint32_t b, bool) { return Result{(a & 0xffff) | (b << 16), kKeep}; })>},
    {"S_PACK_LH_B32_B16", sop2_32<([](uint32_t a, uint32_t b, bool) { return Result{(a & 0xffff) | (b & 0xffff0000u), kKeep}; })>},
    {"S_PACK_HH_B32_B16", sop2_32<([](uint32_t a, uint32_t b, bool) { return Result{(a >> 16) | (b & 0xffff0000u), kKeep}; })>},
    {"S_LSHL1_ADD_U32", sop2_32<lshl_add<1>>},
    {"S_LSHL2_ADD_U32", sop2_32<lshl_add<2>>},
    {"S_LSHL3_ADD_U32", sop2_32<lshl_add<3>>},
    {"S_LSHL4_ADD_U32", sop2_32<lshl_add<4>>},
    // SOP2, 64-bit
    {"S_AND_B64", sop2_64<([](uint64_t a, uint64_t b, bool) { return nonzero64(a & b); })>},
    {"S_OR_B64", sop2_64<([](uint64_t a, uint64_t b, bool) { return nonzero64(a | b); })>},
    {"S_XOR_B64", sop2_64<([](uint64_t a, uint64_t b, bool) { return nonzero64(a ^ b); })>},
    {"S_ANDN2_B64", sop2_64<([](uint64_t a, uint64_t b, bool) { return nonzero64(a & ~b); })>},
    {"S_ORN2_B64", sop2_64<([](uint64_t a, uint64_t b, bool) { return nonzero64(a | ~b); })>},
    {"S_NAND_B64", sop2_64<([](uint64_t a, uint64_t b, bool) { return nonzero64(~(a & b)); })>},
    {"S_NOR_B64", sop2_64<([](uint64_t a, uint64_t b, bool) { return nonzero64(~(a | b)); })>},
    {"S_XNOR_B64", sop2_64<([](uint64_t a, uint64_t b, bool) { return nonzero64(~(a ^ b)); })>},
    {"S_LSHL_B64", sop2_64<([](uint64_t a, uint64_t b, bool) { return nonzero64(a << (b & 63)); })>},
    {"S_LSHR_B64", sop2_64<([](uint64_t a, uint64_t b, bool) { return nonzero64(a >> (b & 63)); })>},
    {"S_ASHR_I64", sop2_64<([](uint64_t a, uint64_t b, bool) { return nonzero64(uint64_t(int64_t(a) >> (b & 63))); })>},
    {"S_CSELECT_B64", sop2_64<([](uint64_t a, uint64_t b, bool c) { return Result{c ? a : b, kKeep}; })>},
    {"S_BFE_U64", sop2_64<([](uint64_t a, uint64_t b, bool) { return nonzero64(bfe_u64(a, uint32_t(b))); })>},
    {"S_BFE_I64", sop2_64<([](uint64_t a, uint64_t b, bool) { return nonzero64(uint64_t(bfe_i64(a, uint32_t(b)))); })>},
    {"S_BFM_B64", sop2_64<([](uint64_t a, uint64_t b, bool) { return Result{mask64(a & 63) << (b & 63), kKeep}; })>},
    // SOP1
    {"S_MOV_B32", sop1_32<([](uint32_t a, bool) { return Result{a, kKeep}; })>},
    {"S_MOV_B64", sop1_64<([](uint64_t a, bool) { return Result{a, kKeep}; })>},
    {"S_NOT_B32", sop1_32<([](uint32_t a, bool) { return nonzero32(~a); })>},
    {"S_NOT_B64", sop1_64<([](uint64_t a, bool) { return nonzero64(~a); })>},
    {"S_BREV_B32", sop1_32<([](uint32_t a, bool) {
       uint32_t r = 0;
       for (int i = 0; i < 32; ++i) r |= ((a >> i) & 1u) << (31 - i);
       return Result{r, kKeep};
     })>},
    {"S_BITSET0_B32", s_bitset_b32<false>},
    {"S_BITSET1_B32", s_bitset_b32<true>},
    {"S_BITSET0_B64", s_bitset_b64<false>},
    {"S_BITSET1_B64", s_bitset_b64<true>},
    {"S_BCNT1_I32_B32", sop1_32<([](uint32_t a, bool) { return nonzero32(uint32_t(std::popcount(a))); })>},
    {"S_BCNT1_I32_B64", ([](Wave& w, const Inst& in) {
       uint32_t r = uint32_t(std::popcount(scalar_u64(w, in.src[0])));
       write_scalar(w, in.dst[0], r);
       w.scc = r != 0;
     })},
    {"S_FF1_I32_B64", ([](Wave& w, const Inst& in) {
       uint64_t a = scalar_u64(w, in.src[0]);
       write_scalar(w, in.dst[0], a ? uint32_t(std::countr_zero(a)) : ~0u);
     })},
    {"S_FLBIT_I32_B64", ([](Wave& w, const Inst& in) {
       uint64_t a = scalar_u64(w, in.src[0]);
       write_scalar(w, in.dst[0], a ? uint32_t(std::countl_zero(a)) : ~0u);
     })},
    {"S_BREV_B64", sop1_64<([](uint64_t a, bool) {
       uint64_t r = 0;
       for (int i = 0; i < 64; ++i) r |= ((a >> i) & 1ull) << (63 - i);
       return Result{r, kKeep};
     })>},
    {"S_FF1_I32_B32", sop1_32<([](uint32_t a, bool) { return Result{a ? uint32_t(std::countr_zero(a)) : ~0u, kKeep}; })>},
    {"S_FLBIT_I32_B32", sop1_32<([](uint32_t a, bool) { return Result{a ? uint32_t(std::countl_zero(a)) : ~0u, kKeep}; })>},
    {"S_SEXT_I32_I8", sop1_32<([](uint32_t a, bool) { return Result{uint32_t(int32_t(int8_t(a))), kKeep}; })>},
    {"S_SEXT_I32_I16", sop1_32<([](uint32_t a, bool) { return Result{uint32_t(int32_t(int16_t(a))), kKeep}; })>},
    {"S_ABS_I32", sop1_32<([](uint32_t a, bool) {
       uint32_t r = int32_t(a) < 0 ? 0u - a : a;
       return nonzero32(r);
     })>},
    {"S_CMOV_B32", ([](Wave& w, const Inst& in) {
       if (w.scc) write_scalar(w, in.dst[0], scalar_u32(w, in.src[0]));
     })},
    {"S_CMOV_B64", ([](Wave& w, const Inst& in) {
       if (w.scc) write_scalar64(w, in.dst[0], scalar_u64(w, in.src[0]));
     })},
    {"S_AND_SAVEEXEC_B64", saveexec<([](uint64_t s, uint64_t e) { return s & e; })>},
    {"S_OR_SAVEEXEC_B64", saveexec<([](uint64_t s, uint64_t e) { return s | e; })>},
    {"S_XOR_SAVEEXEC_B64", saveexec<([](uint64_t s, uint64_t e) { return s ^ e; })>},
    {"S_ANDN2_SAVEEXEC_B64", saveexec<([](uint64_t s, uint64_t e) { return s & ~e; })>},
    {"S_ORN2_SAVEEXEC_B64", saveexec<([](uint64_t s, uint64_t e) { return s | ~e; })>},
    // SOPC
    {"S_CMP_EQ_U32", sopc_32<([](uint32_t a, uint32_t b) { return a == b; })>},
    {"S_CMP_LG_U32", sopc_32<([](uint32_t a, uint32_t b) { return a != b; })>},
    {"S_CMP_GT_U32", sopc_32<([](uint32_t a, uint32_t b) { return a > b; })>},
    {"S_CMP_GE_U32", sopc_32<([](uint32_t a, uint32_t b) { return a >= b; })>},
    {"S_CMP_LT_U32", sopc_32<([](uint32_t a, uint32_t b) { return a < b; })>},
    {"S_CMP_LE_U32", sopc_32<([](uint32_t a, uint32_t b) { return a <= b; })>},
    {"S_CMP_EQ_I32", sopc_32<([](uint32_t a, uint32_t b) { return a == b; })>},
    {"S_CMP_LG_I32", sopc_32<([](uint32_t a, uint32_t b) { return a != b; })>},
    {"S_CMP_GT_I32", sopc_32<([](uint32_t a, uint32_t b) { return int32_t(a) > int32_t(b); })>},
    {"S_CMP_GE_I32", sopc_32<([](uint32_t a, uint32_t b) { return int32_t(a) >= int32_t(b); })>},
    {"S_CMP_LT_I32", sopc_32<([](uint32_t a, uint32_t b) { return int32_t(a) < int32_t(b); })>},
    {"S_CMP_LE_I32", sopc_32<([](uint32_t a, uint32_t b) { return int32_t(a) <= int32_t(b); })>},
    {"S_CMP_EQ_U64", sopc_64<([](uint64_t a, uint64_t b) { return a == b; })>},
    {"S_CMP_LG_U64", sopc_64<([](uint64_t a, uint64_t b) { return a != b; })>},
    {"S_BITCMP0_B32", sopc_32<([](uint32_t a, uint32_t b) { return ((a >> (b & 31)) & 1) == 0; })>},
    {"S_BITCMP1_B32", sopc_32<([](uint32_t a, uint32_t b) { return ((a >> (b & 31)) & 1) == 1; })>},
    {"S_BITCMP0_B64", ([](Wave& w, const Inst& in) { w.scc = ((scalar_u64(w, in.src[0]) >> (scalar_u32(w, in.src[1]) & 63)) & 1) == 0; })},
    {"S_BITCMP1_B64", ([](Wave& w, const Inst& in) { w.scc = ((scalar_u64(w, in.src[0]) >> (scalar_u32(w, in.src[1]) & 63)) & 1) == 1; })},
    // SOPK
    {"S_MOVK_I32", s_movk_i32},
    {"S_CMOVK_I32", s_cmovk_i32},
    {"S_ADDK_I32", s_addk_i32},
    {"S_MULK_I32", s_mulk_i32},
    {"S_CMPK_EQ_I32", sopk_cmp<([](uint32_t a, uint32_t b) { return a == b; }), true>},
    {"S_CMPK_LG_I32", sopk_cmp<([](uint32_t a, uint32_t b) { return a != b; }), true>},
    {"S_CMPK_GT_I32", sopk_cmp<([](uint32_t a, uint32_t b) { return int32_t(a) > int32_t(b); }), true>},
    {"S_CMPK_GE_I32", sopk_cmp<([](uint32_t a, uint32_t b) { return int32_t(a) >= int32_t(b); }), true>},
    {"S_CMPK_LT_I32", sopk_cmp<([](uint32_t a, uint32_t b) { return int32_t(a) < int32_t(b); }), true>},
    {"S_CMPK_LE_I32", sopk_cmp<([](uint32_t a, uint32_t b) { return int32_t(a) <= int32_t(b); }), true>},
    {"S_CMPK_EQ_U32", sopk_cmp<([](uint32_t a, uint32_t b) { return a == b; }), false>},
    {"S_CMPK_LG_U32", sopk_cmp<([](uint32_t a, uint32_t b) { return a != b; }), false>},
    {"S_CMPK_GT_U32", sopk_cmp<([](uint32_t a, uint32_t b) { return a > b; }), false>},
    {"S_CMPK_GE_U32", sopk_cmp<([](uint32_t a, uint32_t b) { return a >= b; }), false>},
    {"S_CMPK_LT_U32", sopk_cmp<([](uint32_t a, uint32_t b) { return a < b; }), false>},
    {"S_CMPK_LE_U32", sopk_cmp<([](uint32_t a, uint32_t b) { return a <= b; }), false>},
};

}  // namespace

void register_scalar_alu(HandlerRegistry& r) {
  for (const auto& e : kScalarOps) r.add(e.name, {e.fn, OperandForm::Scalar, 0, 0});
}

}  // namespace cdna4::emu
