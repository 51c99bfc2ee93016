// VOP3P packed fp32 operations on 64-bit register pairs (gfx90a and later).
// Each half of the result takes one dword of every source: op_sel picks the
// dword feeding the low result, op_sel_hi the one feeding the high result;
// neg_lo / neg_hi flip the sign of the value feeding that half; clamp applies
// to both halves. Host IEEE fp32, round-to-nearest-even, denormals kept, NaN
// results by gfx950's rule (common/nan_rules.hpp).

#include "common/nan_rules.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

constexpr uint32_t kSignBit = 0x80000000u;

// The value of source `o` that feeds the low (high = false) or high result half.
void fetch_half(const Wave& w, const Operand& o, bool high, uint32_t* out) {
  uint8_t from_high = high ? packed_sel::kHighFromHigh : packed_sel::kLowFromHigh;
  fetch(w, o, out, (o.packed & from_high) ? 1 : 0);
  bool negate = high ? (o.packed & packed_sel::kNegHigh) != 0 : o.neg != 0;
  if (negate)
    for (int l = 0; l < kLanes; ++l) out[l] ^= kSignBit;
}

template <int kSources, auto F> void packed_f32(Wave& w, const Inst& in) {
  LaneValues src[2][kSources], result[2];
  for (int half = 0; half < 2; ++half)
    for (int s = 0; s < kSources; ++s) fetch_half(w, in.src[s], half == 1, src[half][s]);
  for (int half = 0; half < 2; ++half) {
    for (int l = 0; l < kLanes; ++l) {
      float r;
      if constexpr (kSources == 2) r = F(as_float(src[half][0][l]), as_float(src[half][1][l]));
      else r = F(as_float(src[half][0][l]), as_float(src[half][1][l]), as_float(src[half][2][l]));
      result[half][l] = as_bits(output_modifiers(in, r));
    }
  }
  store_lanes(w, in.dst[0].index, result[0]);
  store_lanes(w, in.dst[0].index + 1, result[1]);
}

// D.dword0 = S0.dword[op_sel[0]], D.dword1 = S1.dword[op_sel[1]].
void v_pk_mov_b32(Wave& w, const Inst& in) {
  LaneValues low, high;
  fetch(w, in.src[0], low, (in.src[0].packed & packed_sel::kLowFromHigh) ? 1 : 0);
  fetch(w, in.src[1], high, (in.src[1].packed & packed_sel::kLowFromHigh) ? 1 : 0);
  store_lanes(w, in.dst[0].index, low);
  store_lanes(w, in.dst[0].index + 1, high);
}

struct Entry {
  const char* name;
  Handler fn;
  uint16_t flags;
};

const Entry kPackedOps[] = {
    {"V_PK_ADD_F32", packed_f32<2, gfx950::add_f32>, 0},
    {"V_PK_MUL_F32", packed_f32<2, gfx950::mul_f32>, 0},
    {"V_PK_FMA_F32", packed_f32<3, gfx950::fma_f32>, 0},
    {"V_PK_MOV_B32", v_pk_mov_b32, hflag::kPackedSelectOnly},
};

}  // namespace

void register_vector_packed(HandlerRegistry& r) {
  for (const auto& e : kPackedOps) r.add(e.name, {e.fn, OperandForm::Packed, e.flags, 0});
}

}  // namespace cdna4::emu
