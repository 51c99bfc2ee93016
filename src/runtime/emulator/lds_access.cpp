#include "runtime/emulator/lds_access.hpp"

#include <fmt/format.h>

#include "runtime/emulator/race_location.hpp"

namespace cdna4::emu {
namespace {

// Within one wave the other queue's access was not waited for; between waves it
// was not waited for, or waited for without a barrier after the wait.
RaceReport lds_race(const Wave& w, bool write, const LdsConflict& c, const AsyncState& other) {
  RaceReport r;
  const bool vector = c.other_cls == AsyncClass::Vector;
  r.other_wave = c.other_wave;
  r.location = lds_location(c.byte_address, c.bytes);
  if (c.other_wave == w.id) {
    r.kind = RaceKind::LdsDsAndDma;
    r.missing = vector ? MissingWait::Vmcnt : MissingWait::Lgkmcnt;
    return r;
  }
  r.kind = !write ? RaceKind::LdsReadAfterWrite
                  : c.other_write ? RaceKind::LdsWriteAfterWrite : RaceKind::LdsWriteAfterRead;
  r.missing = other.guaranteed(c.other_cls, c.other_seq) ? MissingWait::Barrier
              : vector                                    ? MissingWait::VmcntAndBarrier
                                                          : MissingWait::LgkmcntAndBarrier;
  return r;
}

}  // namespace

void check_lds_sub_dword_range(Wave& w, const Inst& in, uint64_t address, uint32_t bytes) {
  if (address % bytes != 0) w.wg->fail(w, in, fmt::format("LDS address 0x{:x} is not {}-byte aligned", address, bytes));
  if (address + bytes > w.wg->lds.size())
    w.wg->fail(w, in, fmt::format("LDS access of {} bytes at 0x{:x} is outside the workgroup's {} bytes of LDS",
                                  bytes, address, w.wg->lds.size()));
}

void fail_lds_range(Wave& w, const Inst& in, uint64_t address, uint32_t bytes) {
  if (address % 4 != 0) w.wg->fail(w, in, fmt::format("LDS address 0x{:x} is not dword aligned", address));
  w.wg->fail(w, in, fmt::format("LDS access of {} bytes at 0x{:x} is outside the workgroup's {} bytes of LDS", bytes,
                                address, w.wg->lds.size()));
}

void LdsLanes::track_spans() {
  Workgroup& wg = *wave_.wg;
  const LdsAccess access{static_cast<uint16_t>(wave_.id), cls_, wave_.async.issued[int(cls_)] + 1, inst_.id,
                         wave_.barrier_epoch, write_};
  auto conflict = wg.lds_tracker.access(spans_, count_, access, wg.async_states);
  if (!conflict) return;
  wg.report_race(wave_, inst_, conflict->other_inst,
                 lds_race(wave_, write_, *conflict, *wg.async_states[conflict->other_wave]));
}

}  // namespace cdna4::emu
