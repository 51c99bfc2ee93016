#pragma once
// LDS reads and writes as seen by instructions: bounds checks and race tracking.
#include <cstdint>

#include "runtime/emulator/workgroup.hpp"

namespace cdna4::emu {

[[noreturn]] void fail_lds_range(Wave& w, const Inst& in, uint64_t address, uint32_t bytes);

// Fails the run unless [address, address + bytes) is inside the workgroup's LDS
// and dword aligned. Inline: every lane of every DS instruction passes here.
inline void check_lds_range(Wave& w, const Inst& in, uint64_t address, uint32_t bytes) {
  if (address % 4 != 0 || address + bytes > w.wg->lds.size()) [[unlikely]]
    fail_lds_range(w, in, address, bytes);
}
// The same for a byte or short access (1 or 2 bytes), which must be naturally aligned.
void check_lds_sub_dword_range(Wave& w, const Inst& in, uint64_t address, uint32_t bytes);

// Records an access by the operation of class `cls` that is about to be
// submitted, reporting a race on conflict (once per call site and execution:
// returns false after the first report so callers can stop checking lanes).
bool track_lds_access(Wave& w, const Inst& in, AsyncClass cls, uint32_t address, uint32_t bytes, bool write);
inline bool track_lds(Wave& w, const Inst& in, AsyncClass cls, uint32_t address, uint32_t bytes, bool write) {
  return !w.wg->track_races || track_lds_access(w, in, cls, address, bytes, write);
}

}  // namespace cdna4::emu
