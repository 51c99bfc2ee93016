#pragma once
// gfx950's LDS: how one DS instruction of a wave is served (docs/model.md
// "LDS bank conflicts"). Lanes go in groups; a group takes `clocks_per_group`
// times the most dwords one of its banks serves (banks counted modulo `banks`;
// lanes reading one dword share it, lanes writing one each count), and the
// instruction takes at least its address clocks (4, plus 4 per dword of a lane
// for a write).
//
// Sources. Which lanes form a group: HipKittens' rocprofv3 measurements on
// MI355X (github.com/HazyResearch/HipKittens @ f09e9685,
// analysis/paper_experiments/phases/*/phase_results.txt and bank_results.txt):
// ds_read_b128 4 groups of 16 lanes (interleaved) on 64 banks, ds_read_b64 2 of
// 32 on 64, ds_read_b96 8 of 8 (interleaved) on 32, ds_write_b64 4 of 16. How
// fast: AMD's rocRoller LDS model for gfx950 (github.com/ROCm/rocm-libraries,
// shared/rocroller/lib/source/LDSBankModel.cpp at 9f2b6979cfa9: lanes a clock
// b32 16, b64 16, b96 4, b128 8 for reads; b32 16, b64 8, b128 4 for writes;
// address clocks), which puts every measured group at 2 clocks. Accesses
// neither source measures (b32, b96 / b128 writes) keep rocRoller's groups.
// Transposing reads (ds_read_b64_tr_*, ds_read_b96_tr_b6) exchange data inside
// each 16-lane row; taking a row as a group at 2 clocks is assumed.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace cdna4::gfx950 {

// Which lanes share a group: consecutive lanes, or HipKittens' measured
// interleavings of each half wave's eight quads of lanes.
enum class LaneOrder : uint8_t { consecutive, b128_quads, b96_quads };

struct LdsRule {
  bool write;
  bool transpose;   // a transposing read
  uint8_t dwords;   // per lane (b32 1, b64 2, b96 3, b128 4)
  uint8_t group_lanes;
  LaneOrder order;
  uint8_t clocks_per_group;
  uint8_t banks;
};

inline constexpr LdsRule kLdsRules[] = {
    {false, false, 1, 16, LaneOrder::consecutive, 1, 32},
    {false, false, 2, 32, LaneOrder::consecutive, 2, 64},
    {false, false, 3, 8, LaneOrder::b96_quads, 2, 32},
    {false, false, 4, 16, LaneOrder::b128_quads, 2, 64},
    {false, true, 2, 16, LaneOrder::consecutive, 2, 64},
    {false, true, 3, 16, LaneOrder::consecutive, 2, 32},
    {true, false, 1, 16, LaneOrder::consecutive, 1, 32},
    {true, false, 2, 16, LaneOrder::consecutive, 2, 32},
    {true, false, 3, 4, LaneOrder::consecutive, 1, 32},
    {true, false, 4, 4, LaneOrder::consecutive, 1, 32},
};

// The rule of an access of `lane_bytes` per lane (sub-dword accesses count as
// b32, a read2 / write2 of two b64 as b128).
constexpr const LdsRule& lds_rule(bool write, uint32_t lane_bytes, bool transpose = false) {
  const uint32_t dwords = std::clamp<uint32_t>((lane_bytes + 3) / 4, 1, 4);
  for (const LdsRule& r : kLdsRules)
    if (r.write == write && r.dwords == dwords && r.transpose == (transpose && !write)) return r;
  for (const LdsRule& r : kLdsRules)
    if (r.write == write && r.dwords == dwords && !r.transpose) return r;
  return kLdsRules[0];
}

// The group lane `lane` (0..63) of a wave belongs to.
constexpr uint32_t lds_lane_group(const LdsRule& r, uint32_t lane) {
  // Per quad of a half wave, the group inside that half (HipKittens' phases).
  constexpr uint8_t kB128[8] = {0, 1, 1, 0, 1, 0, 0, 1};  // {0-3, 12-15, 20-27}, {4-11, 16-19, 28-31}
  constexpr uint8_t kB96[8] = {0, 1, 2, 3, 1, 0, 3, 2};   // {0-3, 20-23}, {4-7, 16-19}, {8-11, 28-31}, {12-15, 24-27}
  const uint32_t half = lane / 32, quad = lane % 32 / 4;
  switch (r.order) {
    case LaneOrder::b128_quads: return half * 2 + kB128[quad];
    case LaneOrder::b96_quads: return half * 4 + kB96[quad];
    case LaneOrder::consecutive: break;
  }
  return lane / r.group_lanes;
}

constexpr uint32_t lds_address_clocks(const LdsRule& r) { return 4 + (r.write ? 4u * r.dwords : 0u); }

// Clocks one lane group takes for the dword addresses its lanes access
// (sorted in place): clocks_per_group times the most dwords one bank serves,
// a dword several lanes read counted once.
inline uint32_t lds_group_clocks(const LdsRule& r, std::vector<uint32_t>& dwords) {
  if (dwords.empty()) return 0;
  std::sort(dwords.begin(), dwords.end());
  if (!r.write) dwords.erase(std::unique(dwords.begin(), dwords.end()), dwords.end());
  std::array<uint32_t, 64> per_bank{};
  uint32_t worst = 0;
  for (uint32_t d : dwords) worst = std::max(worst, ++per_bank[d % r.banks]);
  return worst * r.clocks_per_group;
}

}  // namespace cdna4::gfx950
