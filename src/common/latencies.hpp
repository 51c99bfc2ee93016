#pragma once
// gfx950 latencies in clocks. The memory ones are assumed (no gfx950
// measurement is published). The timing model uses them, and the emulator's
// timed mode completes memory operations after them.
namespace cdna4::gfx950 {

// LLVM SISchedule.td: gfx940+ XDL write latency = 4 x passes (passes per kind in mfma_table.hpp).
inline constexpr int kClocksPerMfmaPass = 4;

inline constexpr int kLdsLatencyClocks = 64;        // published CDNA 3 microbenchmarks put LDS at 60-130 clocks
inline constexpr int kScalarCacheLatencyClocks = 64; // a scalar cache hit
inline constexpr int kL2HitLatencyClocks = 500;      // a loaded L2 hit
inline constexpr int kMallHitLatencyClocks = 900;    // a loaded MALL (Infinity Cache) hit
inline constexpr int kHbmLatencyClocks = 1200;       // a loaded HBM access

}  // namespace cdna4::gfx950
