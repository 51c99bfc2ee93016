#pragma once
// Operand access shared by the instruction handlers.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "runtime/emulator/wave.hpp"

namespace cdna4::emu {

using LaneValues = uint32_t[kLanes];

inline uint32_t scalar_u32(const Wave& w, const Operand& o) {
  switch (o.kind) {
    case OperandKind::Sgpr: return w.sgpr[o.index];
    case OperandKind::Imm: return static_cast<uint32_t>(o.imm);
    case OperandKind::Scc: return w.scc;
    case OperandKind::VccZ: return w.vcc() == 0;
    case OperandKind::ExecZ: return w.exec() == 0;
    default: return 0;
  }
}

inline uint64_t scalar_u64(const Wave& w, const Operand& o) {
  if (o.kind == OperandKind::Sgpr) return w.s64(o.index);
  if (o.kind == OperandKind::Imm) return o.imm;
  return scalar_u32(w, o);
}

inline void write_scalar(Wave& w, const Operand& o, uint32_t value) { w.sgpr[o.index] = value; }
inline void write_scalar64(Wave& w, const Operand& o, uint64_t value) { w.set_s64(o.index, value); }

// Dword `d` of a vector source for every lane (VGPR, or a broadcast scalar).
inline void fetch(const Wave& w, const Operand& o, uint32_t* out, uint32_t d = 0) {
  if (o.kind == OperandKind::Vgpr) {
    std::memcpy(out, w.v(o.index + d), sizeof(LaneValues));
    return;
  }
  uint32_t value = o.kind == OperandKind::Sgpr ? w.sgpr[o.index + d]
                   : o.kind == OperandKind::Imm ? static_cast<uint32_t>(o.imm >> (32 * d))
                                                : scalar_u32(w, o);
  for (int l = 0; l < kLanes; ++l) out[l] = value;
}

// Float source with VOP3 abs/neg applied to the sign bit.
inline void fetch_f32(const Wave& w, const Operand& o, uint32_t* out) {
  fetch(w, o, out);
  uint32_t clear = o.abs ? 0x7fffffffu : 0xffffffffu;
  uint32_t flip = o.neg ? 0x80000000u : 0u;
  if (o.abs || o.neg)
    for (int l = 0; l < kLanes; ++l) out[l] = (out[l] & clear) ^ flip;
}

inline void store_lanes(Wave& w, uint32_t reg, const uint32_t* values) {
  uint64_t exec = w.exec();
  uint32_t* dst = w.v(reg);
  if (exec == ~0ull) {
    std::memcpy(dst, values, sizeof(LaneValues));
    return;
  }
  for (int l = 0; l < kLanes; ++l)
    if ((exec >> l) & 1) dst[l] = values[l];
}

// A 16-bit result written to the low or high half (op_sel[3]) of `old`, the other half kept.
inline uint32_t with_half(uint32_t old, uint32_t half, bool high) {
  return high ? (old & 0xffffu) | (half << 16) : (old & 0xffff0000u) | half;
}

inline float as_float(uint32_t bits) { return std::bit_cast<float>(bits); }
inline uint32_t as_bits(float f) { return std::bit_cast<uint32_t>(f); }

// VOP3 result modifiers: omod scales first, then clamp to [0, 1] (NaN -> 0).
inline float output_modifiers(const Inst& in, float r) {
  switch (in.omod) {
    case 1: r *= 2.0f; break;
    case 2: r *= 4.0f; break;
    case 3: r *= 0.5f; break;
    default: break;
  }
  if (in.clamp) r = std::isnan(r) ? 0.0f : std::fmin(std::fmax(r, 0.0f), 1.0f);
  return r;
}

}  // namespace cdna4::emu
