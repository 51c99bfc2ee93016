#pragma once
// What a wave's memory instruction costs, computed from its lanes' addresses.
#include <cstdint>
#include <span>

#include "runtime/emulator/trace.hpp"
#include "common/lds_rules.hpp"
#include "common/limits.hpp"

namespace cdna4::emu {

// gfx950 LDS: 64 banks of 4 bytes. docs/model.md "LDS bank conflicts".
constexpr uint32_t kLdsBanks = gfx950::kLdsBanks;
constexpr uint32_t kLdsBankBytes = 4;
// Global memory is counted in 128-byte cache lines. docs/model.md "Coalescing".
constexpr uint32_t kCacheLineBytes = 128;

// Clock cycles the LDS needs for one DS instruction (a write when `write`, a
// transposing read when `transpose`), by the rules of common/lds_rules.hpp.
uint32_t lds_bank_cycles(std::span<const LaneAccess> lanes, bool write, bool transpose = false);

// Distinct 128-byte lines the lanes' byte ranges touch.
uint32_t distinct_cache_lines(std::span<const LaneAccess> lanes);

}  // namespace cdna4::emu
