#include "runtime/emulator/timed_issue.hpp"

#include <algorithm>

#include "common/latencies.hpp"

namespace cdna4::emu {
namespace {

uint32_t simd_of(const Wave& w) { return w.id % gfx950::kSimdsPerCu; }

bool is_mfma(const Workgroup& wg, const Inst& in) {
  return wg.program->hazard[in.id].cls == gfx950::HazardClass::mfma;
}

// When `w` can issue its next instruction: its own clock, and for an MFMA its
// SIMD's pipe; never before the workgroup's present.
uint64_t issue_clock(const Workgroup& wg, const Wave& w) {
  uint64_t at = std::max(w.clock, wg.now);
  if (w.pc < wg.program->insts.size() && is_mfma(wg, wg.program->insts[w.pc]))
    at = std::max(at, wg.mfma_free_at[simd_of(w)]);
  return at;
}

}  // namespace

Wave* next_in_clock_order(Workgroup& wg, uint64_t next_wake) {
  const uint32_t n = static_cast<uint32_t>(wg.waves.size());
  Wave* best = nullptr;
  uint64_t best_clock = ~0ull;
  for (uint32_t i = 0; i < n; ++i) {
    Wave& w = wg.waves[(wg.next_in_turn + i) % n];
    if (w.status != WaveStatus::Ready) continue;
    const uint64_t clock = issue_clock(wg, w);
    if (clock < best_clock) {
      best = &w;
      best_clock = clock;
    }
  }
  if (next_wake < best_clock) {
    wg.now = next_wake;
    return nullptr;
  }
  wg.next_in_turn = (best->id + 1) % n;
  return best;
}

void begin_timed_issue(Workgroup& wg, const Wave& w) { wg.now = issue_clock(wg, w); }

void end_timed_issue(Workgroup& wg, Wave& w, const Inst& in) {
  if (is_mfma(wg, in) && w.status != WaveStatus::Waiting) {
    const int passes = std::max(1, wg.program->hazard[in.id].passes);
    wg.mfma_free_at[simd_of(w)] = wg.now + uint64_t(gfx950::kClocksPerMfmaPass) * passes;
  }
  w.clock = std::max(w.clock, wg.now) + kIssueClocks;  // w.clock: past wg.now after s_nop / s_sleep
}

}  // namespace cdna4::emu
