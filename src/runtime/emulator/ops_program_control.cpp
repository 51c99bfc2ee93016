// SOPP: branches, waits, barrier, priority, nop, end of program.
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/memory_timing.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

template <auto Taken> void branch(Wave& w, const Inst& in) {
  if (Taken(w)) w.next_pc = in.target;
}

// gfx9 s_waitcnt: vmcnt bits 3:0 and 15:14, expcnt 6:4, lgkmcnt 11:8.
void s_waitcnt(Wave& w, const Inst& in) {
  uint32_t imm = static_cast<uint32_t>(in.offset);
  uint32_t vmcnt = (imm & 0xf) | (((imm >> 14) & 3) << 4);
  uint32_t lgkmcnt = (imm >> 8) & 0xf;
  if (!wait_for_counts(w, vmcnt, lgkmcnt)) w.next_pc = w.pc;  // retried when ready
}

void s_barrier(Wave& w, const Inst&) { w.status = WaveStatus::AtBarrier; }

void s_endpgm(Wave& w, const Inst&) {
  drain(w);
  w.status = WaveStatus::Done;
  --w.wg->live_waves;
}

// Timing hooks: s_nop N occupies N+1 issue slots, s_sleep 64*N. The timed
// mode holds only the wave (its clock); otherwise the workgroup's clock moves.
void idle(Wave& w, uint64_t clocks) {
  if (w.wg->timed) w.clock = w.wg->now + clocks;
  else w.wg->now += clocks;
}
void s_nop(Wave& w, const Inst& in) { idle(w, static_cast<uint64_t>(in.offset & 0xf)); }
void s_sleep(Wave& w, const Inst& in) { idle(w, 64 * static_cast<uint64_t>(in.offset & 0x7f)); }
void s_setprio(Wave& w, const Inst& in) { w.priority = static_cast<uint32_t>(in.offset & 3); }

struct Entry {
  const char* name;
  Handler fn;
  uint16_t flags;
};

const Entry kProgramOps[] = {
    {"S_BRANCH", branch<([](const Wave&) { return true; })>, hflag::kBranch},
    {"S_CBRANCH_SCC0", branch<([](const Wave& w) { return !w.scc; })>, hflag::kBranch},
    {"S_CBRANCH_SCC1", branch<([](const Wave& w) { return w.scc; })>, hflag::kBranch},
    {"S_CBRANCH_VCCZ", branch<([](const Wave& w) { return w.vcc() == 0; })>, hflag::kBranch},
    {"S_CBRANCH_VCCNZ", branch<([](const Wave& w) { return w.vcc() != 0; })>, hflag::kBranch},
    {"S_CBRANCH_EXECZ", branch<([](const Wave& w) { return w.exec() == 0; })>, hflag::kBranch},
    {"S_CBRANCH_EXECNZ", branch<([](const Wave& w) { return w.exec() != 0; })>, hflag::kBranch},
    {"S_WAITCNT", s_waitcnt, 0},
    {"S_BARRIER", s_barrier, 0},
    {"S_ENDPGM", s_endpgm, 0},
    {"S_NOP", s_nop, 0},
    {"S_SLEEP", s_sleep, 0},
    {"S_SETPRIO", s_setprio, 0},
};

}  // namespace

void register_program_control(HandlerRegistry& r) {
  for (const auto& e : kProgramOps) r.add(e.name, {e.fn, OperandForm::Program, e.flags, 0});
}

}  // namespace cdna4::emu
