#pragma once
// gfx950's LDS: how one DS instruction of a wave is served. Lanes go in groups
// of `lanes_per_clock`, in lane order; a group takes as many clocks as the most
// dwords one bank serves (banks counted modulo `banks`; lanes reading one dword
// share it, lanes writing one each count), and the instruction takes at least its address clocks
// (4, plus 4 per dword of a lane for a write). Source: AMD's rocRoller LDS bank
// model for gfx950 (github.com/ROCm/rocm-libraries,
// shared/rocroller/lib/source/LDSBankModel.cpp at 9f2b6979cfa9: threads per
// clock, 64 banks for ds_read_b64 / b128 and 32 for every other access,
// issue cycles); docs/model.md "LDS bank conflicts".
#include <algorithm>
#include <cstdint>

namespace cdna4::gfx950 {

struct LdsRule {
  bool write;
  uint8_t dwords;  // per lane (b32 1, b64 2, b96 3, b128 4)
  uint8_t lanes_per_clock;
  uint8_t banks;
};

inline constexpr LdsRule kLdsRules[] = {
    {false, 1, 16, 32}, {false, 2, 16, 64}, {false, 3, 4, 32}, {false, 4, 8, 64},
    {true, 1, 16, 32},  {true, 2, 8, 32},   {true, 3, 4, 32},  {true, 4, 4, 32},
};

// The rule of an access of `lane_bytes` per lane (sub-dword accesses count as
// b32, a read2 / write2 of two b64 as b128).
constexpr const LdsRule& lds_rule(bool write, uint32_t lane_bytes) {
  const uint32_t dwords = std::clamp<uint32_t>((lane_bytes + 3) / 4, 1, 4);
  for (const LdsRule& r : kLdsRules)
    if (r.write == write && r.dwords == dwords) return r;
  return kLdsRules[0];
}

constexpr uint32_t lds_address_clocks(const LdsRule& r) { return 4 + (r.write ? 4u * r.dwords : 0u); }

}  // namespace cdna4::gfx950
