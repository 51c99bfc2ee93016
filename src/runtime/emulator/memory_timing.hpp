#pragma once
// Issue, completion and waiting of memory operations (vmcnt / lgkmcnt queues),
// plus the register side of race detection.
#include <cstdint>

#include "runtime/emulator/wave.hpp"

namespace cdna4::emu {

// Returns a fresh operation of class `cls` to fill in; pass it to submit().
PendingOp& begin_op(Wave& wave, AsyncClass cls);
// Where an operation's `dwords` x 64 values ([dword][lane]) go, once every lane
// has been checked: with instant completion and all lanes written, straight into
// its target (the registers from op.reg; LDS from `lds_at`, lane after lane), as
// applying them at submit() would; else into op.values, to land on completion.
uint32_t* register_values(Wave& wave, PendingOp& op);
uint32_t* lds_block_values(Wave& wave, PendingOp& op, uint32_t lds_at, size_t dwords);
// Schedules completion (or applies at once with instant completion) and marks
// the target registers as pending.
void submit(Wave& wave, const Inst& in, PendingOp& op);
// Applies every operation of the wave that has completed by now.
void apply_completed(Wave& wave);
inline void retire_completed(Wave& wave) {
  if (wave.async.earliest_completion <= wave.wg->now) apply_completed(wave);
}
// s_waitcnt: true when the counts hold (and the covered ops become guaranteed);
// otherwise the wave waits until the simulated time at which they will.
bool wait_for_counts(Wave& wave, uint32_t vmcnt, uint32_t lgkmcnt);
// Reports reads/overwrites of registers that a not-yet-waited-for load targets.
void find_register_races(Wave& wave, const Inst& in);
// Only when some register `in` accesses (coarsely: its HazardRows::touches) may be tagged.
inline void check_register_races(Wave& wave, const Inst& in) {
  if (wave.async.tagged != 0 && wave.async.tagged_footprint.meets(wave.wg->program->hazard_rows[in.id].touches))
    find_register_races(wave, in);
}
// Drops all outstanding operations (end of program), applying completed ones.
void drain(Wave& wave);

}  // namespace cdna4::emu
