#pragma once
// gfx9 DPP and SDWA instruction modifiers as the CDNA3 / CDNA4 ISA guides
// define them ("Data Parallel Processing", "Sub-Dword Addressing") and LLVM
// encodes them (SIDefines.h: DppCtrl, SdwaSel, DstUnused).
#include <cstdint>

#include "common/limits.hpp"

namespace cdna4::gfx950 {

namespace dpp {

constexpr int kRowLanes = 16;
constexpr int kBankLanes = 4;  // bank_mask bit b enables lanes 4b..4b+3 of every row

// The lane whose src0 lane `lane` reads under dpp_ctrl `ctrl`; -1 when that
// lane is outside the row or wave (bound_ctrl decides what happens), -2 when
// `ctrl` is a reserved code.
constexpr int source_lane(uint32_t ctrl, int lane) {
  const int row = lane & ~(kRowLanes - 1), in_row = lane % kRowLanes;
  auto in_row_or_out = [&](int i) { return i >= 0 && i < kRowLanes ? row + i : -1; };
  if (ctrl <= 0xff) return (lane & ~3) + int((ctrl >> (2 * (lane & 3))) & 3);  // quad_perm
  const int n = int(ctrl & 0xf);
  switch (ctrl & ~0xfu) {
    case 0x100: return n ? in_row_or_out(in_row + n) : -2;                      // row_shl:n
    case 0x110: return n ? in_row_or_out(in_row - n) : -2;                      // row_shr:n
    case 0x120: return n ? row + (in_row - n + kRowLanes) % kRowLanes : -2;      // row_ror:n
    case 0x150: return row + n;                                                 // row_newbcast:n
    default: break;
  }
  switch (ctrl) {
    case 0x130: return lane + 1 < kWaveSize ? lane + 1 : -1;                    // wave_shl:1
    case 0x134: return (lane + 1) % kWaveSize;                                  // wave_rol:1
    case 0x138: return lane - 1;                                                // wave_shr:1
    case 0x13c: return (lane + kWaveSize - 1) % kWaveSize;                      // wave_ror:1
    case 0x140: return row + kRowLanes - 1 - in_row;                            // row_mirror
    case 0x141: return (lane & ~7) + 7 - (lane & 7);                            // row_half_mirror
    case 0x142: return row ? row - 1 : -1;                                      // row_bcast:15
    case 0x143: return lane >= 32 ? 31 : -1;                                    // row_bcast:31
    default: return -2;
  }
}

// row_mask bit r enables row r, bank_mask bit b lanes 4b..4b+3 of each row.
constexpr uint64_t write_lanes(uint32_t row_mask, uint32_t bank_mask) {
  uint64_t lanes = 0;
  for (int l = 0; l < kWaveSize; ++l)
    if ((row_mask >> (l / kRowLanes) & 1) && (bank_mask >> (l % kRowLanes / kBankLanes) & 1)) lanes |= 1ull << l;
  return lanes;
}

}  // namespace dpp

namespace sdwa {

// src0_sel / src1_sel / dst_sel codes.
enum Select : uint8_t { kByte0 = 0, kByte1, kByte2, kByte3, kWord0, kWord1, kDword };
// dst_unused codes: the destination bits outside dst_sel.
enum Unused : uint8_t { kPad = 0, kSignExtend = 1, kPreserve = 2 };

constexpr int select_shift(uint8_t sel) { return sel < kWord0 ? 8 * sel : sel < kDword ? 16 * (sel - kWord0) : 0; }
constexpr int select_bits(uint8_t sel) { return sel < kWord0 ? 8 : sel < kDword ? 16 : 32; }

// The selected field of `value` moved to bit 0, zero- or (sext) sign-extended.
constexpr uint32_t select(uint32_t value, uint8_t sel, bool sign_extend) {
  const int bits = select_bits(sel);
  if (bits == 32) return value;
  const uint32_t field = (value >> select_shift(sel)) & ((1u << bits) - 1), sign = 1u << (bits - 1);
  return sign_extend ? (field ^ sign) - sign : field;
}

// The result's low bits written into the dst_sel field of the destination;
// bits above it: 0, the field's sign or the old destination's; bits below it:
// 0 or (preserve) the old destination's.
constexpr uint32_t place(uint32_t result, uint32_t old, uint8_t sel, uint8_t unused) {
  const int bits = select_bits(sel), shift = select_shift(sel);
  if (bits == 32) return result;
  const uint32_t field_mask = ((1u << bits) - 1) << shift, field = (result << shift) & field_mask;
  if (unused == kPreserve) return (old & ~field_mask) | field;
  const int top = shift + bits;
  const uint32_t above = top < 32 ? ~0u << top : 0u;
  const bool negative = (result >> (bits - 1)) & 1;
  return field | (unused == kSignExtend && negative ? above : 0u);
}

}  // namespace sdwa

}  // namespace cdna4::gfx950
