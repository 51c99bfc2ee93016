#include "runtime/emulator/lds_access.hpp"

#include <fmt/format.h>

namespace cdna4::emu {

void check_lds_range(Wave& w, const Inst& in, uint64_t address, uint32_t bytes) {
  if (address % 4 != 0)
    w.wg->fail(w, in, fmt::format("LDS address 0x{:x} is not dword aligned", address));
  if (address + bytes > w.wg->lds.size())
    w.wg->fail(w, in, fmt::format("LDS access of {} bytes at 0x{:x} is outside the workgroup's {} bytes of LDS",
                                  bytes, address, w.wg->lds.size()));
}

bool track_lds(Wave& w, const Inst& in, AsyncClass cls, uint32_t address, uint32_t bytes, bool write) {
  Workgroup& wg = *w.wg;
  if (!wg.track_races) return true;
  LdsAccess access{static_cast<uint16_t>(w.id), cls, w.async.issued[int(cls)] + 1, in.id, w.barrier_epoch, write};
  auto conflict = wg.lds_tracker.access(address / 4, (bytes + 3) / 4, access, wg.async_states);
  if (!conflict) return true;
  const Program& p = *wg.program;
  wg.report_race(w, in,
                 fmt::format("{} LDS 0x{:x} which wave {} {} with '{}' (at 0x{:x}) without s_waitcnt and "
                             "s_barrier between the two",
                             write ? "writes" : "reads", conflict->byte_address, conflict->other_wave,
                             conflict->other_write ? "writes" : "reads", p.disasm[conflict->other_inst],
                             p.insts[conflict->other_inst].pc));
  return false;
}

}  // namespace cdna4::emu
