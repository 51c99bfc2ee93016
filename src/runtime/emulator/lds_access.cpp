#include "runtime/emulator/lds_access.hpp"

#include <fmt/format.h>

#include <bit>

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

// The access `in` is about to submit: its sequence number is the next of its class.
LdsAccess next_access(const Wave& w, const Inst& in, AsyncClass cls, bool write) {
  return LdsAccess{static_cast<uint16_t>(w.id), cls, w.async.issued[int(cls)] + 1, in.id, w.barrier_epoch, write};
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

void track_lanes(Wave& w, const Inst& in, const uint32_t* address, uint64_t exec, uint32_t offset, uint32_t bytes,
                 bool write) {
  Workgroup& wg = *w.wg;
  if (wg.lds_tracker.lanes_if_clear(address, exec, offset, bytes / 4, next_access(w, in, AsyncClass::Lds, write),
                                    wg.async_states))
    return;
  LdsLanes tracked(w, in, AsyncClass::Lds, write);
  tracked.add_each(address, exec, offset, bytes);
  tracked.track();
}

// The span being grown, [start, end), is kept aside (in registers) and stored
// when the next lane does not follow it.
void LdsLanes::add_each(const uint32_t* address, uint64_t exec, uint32_t offset, uint32_t bytes) {
  if (!on_ || exec == 0) return;
  const uint32_t unit = (bytes + 3) / 4;
  uint32_t start = 0, end = ~0u;  // none open: no lane's first dword is ~0u
  if (count_ > 0 && spans_[count_ - 1].unit == unit) {
    --count_;
    start = spans_[count_].first;
    end = start + spans_[count_].count;
  }
  auto lane = [&](uint32_t l) {
    const uint32_t first = (address[l] + offset) / 4;
    if (first == end) {
      end += unit;
      return;
    }
    if (end != ~0u) spans_[count_++] = LdsSpan{start, end - start, unit};
    start = first;
    end = first + unit;
  };
  if (exec == ~uint64_t(0)) {
    for (uint32_t l = 0; l < 64; ++l) lane(l);
  } else {
    for (uint64_t left = exec; left != 0; left &= left - 1) lane(uint32_t(std::countr_zero(left)));
  }
  spans_[count_++] = LdsSpan{start, end - start, unit};
}

void LdsLanes::track_spans() {
  Workgroup& wg = *wave_.wg;
  const LdsAccess access = next_access(wave_, inst_, cls_, write_);
  auto conflict = wg.lds_tracker.access(spans_, count_, access, wg.async_states);
  if (!conflict) return;
  wg.report_race(wave_, inst_, conflict->other_inst,
                 lds_race(wave_, write_, *conflict, *wg.async_states[conflict->other_wave]));
}

}  // namespace cdna4::emu
