#pragma once
// What a wave's memory instruction costs, computed from its lanes' addresses.
#include <cstdint>
#include <span>

#include "runtime/emulator/trace.hpp"
#include "common/limits.hpp"

namespace cdna4::emu {

// gfx950 LDS: 64 banks of 4 bytes. docs/model.md "LDS bank conflicts".
constexpr uint32_t kLdsBanks = gfx950::kLdsBanks;
constexpr uint32_t kLdsBankBytes = 4;
constexpr uint32_t kLdsPhaseBytes = gfx950::kLdsPhaseBytes;
// Global memory is counted in 128-byte cache lines. docs/model.md "Coalescing".
constexpr uint32_t kCacheLineBytes = 128;

// Clock cycles the LDS banks need for one DS instruction: lanes are served in
// phases of kLdsPhaseBytes / bytes-per-lane lanes (8 for b128, 16 for b64, 32
// for b32), in lane order; a phase takes as many cycles as the most distinct
// dword addresses any one of the kLdsBanks banks holds (equal addresses are
// broadcast). At least 1.
uint32_t lds_bank_cycles(std::span<const LaneAccess> lanes);

// Distinct 128-byte lines the lanes' byte ranges touch.
uint32_t distinct_cache_lines(std::span<const LaneAccess> lanes);

}  // namespace cdna4::emu
