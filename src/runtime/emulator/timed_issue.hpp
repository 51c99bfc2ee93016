#pragma once
// Timed mode (EmulatorOptions::timed): each wave has a clock; the ready wave
// with the earliest clock issues next, an instruction takes a wave's issue
// slot for kIssueClocks, an MFMA waits for its SIMD's MFMA pipe, and memory
// completes after gfx950's latencies (memory_timing.cpp). Deterministic.
#include <cstdint>

#include "runtime/emulator/wave.hpp"

namespace cdna4::emu {

// A SIMD offers each of its waves an issue slot every fourth clock.
inline constexpr uint64_t kIssueClocks = 4;

// The ready wave that issues next, or null when a waiting wave wakes (at
// `next_wake`) before any ready wave could issue; then the workgroup's clock
// has moved to `next_wake`.
Wave* next_in_clock_order(Workgroup& wg, uint64_t next_wake);

// Sets the workgroup's clock to when the next instruction of `w` issues.
void begin_timed_issue(Workgroup& wg, const Wave& w);
// Moves `w`'s clock past the issue (and an MFMA's pipe past its passes).
void end_timed_issue(Workgroup& wg, Wave& w, const Inst& in);

}  // namespace cdna4::emu
