#pragma once
// LDS reads and writes as seen by instructions: bounds checks and race tracking.
#include <cstdint>

#include "runtime/emulator/wave.hpp"

namespace cdna4::emu {

// Fails the run unless [address, address + bytes) is inside the workgroup's LDS
// and aligned to `alignment` bytes (a dword unless given).
void check_lds_range(Wave& w, const Inst& in, uint64_t address, uint32_t bytes, uint32_t alignment = 4);

// Records an access by the operation of class `cls` that is about to be
// submitted, reporting a race on conflict (once per call site and execution:
// returns false after the first report so callers can stop checking lanes).
bool track_lds(Wave& w, const Inst& in, AsyncClass cls, uint32_t address, uint32_t bytes, bool write);

}  // namespace cdna4::emu
