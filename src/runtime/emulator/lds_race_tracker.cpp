#include "runtime/emulator/lds_race_tracker.hpp"

#include "runtime/emulator/async_queue.hpp"

namespace cdna4::emu {

void LdsRaceTracker::reset(uint32_t lds_bytes, uint32_t waves) {
  uint32_t dwords = (lds_bytes + 3) / 4;
  if (waves != waves_ || writers_.size() < dwords) {
    waves_ = waves;
    writers_.assign(dwords, Writer{});
    readers_.assign(size_t(dwords) * waves, Reader{});
    generation_ = 0;
  }
  ++generation_;  // invalidates every record lazily
}

void LdsRaceTracker::touch(uint32_t dword) {
  Writer& w = writers_[dword];
  if (w.generation == generation_) return;
  w = Writer{generation_, 0, 0, 0, AsyncClass::None};
  Reader* r = &readers_[size_t(dword) * waves_];
  for (uint32_t i = 0; i < waves_; ++i) r[i] = Reader{};
}

namespace {
bool conflicts(const LdsAccess& a, uint16_t other_wave, AsyncClass other_cls, uint32_t other_seq,
               const std::vector<const AsyncState*>& states) {
  const AsyncState& other = *states[other_wave];
  if (other_wave == a.wave)  // one queue completes in order; two queues do not
    return other_cls != a.cls && !other.guaranteed(other_cls, other_seq);
  return a.epoch <= other.guarantee_epoch(other_cls, other_seq);
}
}  // namespace

std::optional<LdsConflict> LdsRaceTracker::access(uint32_t first, uint32_t count, const LdsAccess& a,
                                                  const std::vector<const AsyncState*>& states) {
  std::optional<LdsConflict> found;
  // Starts the conflict or grows it by one dword; false when `c` is another one.
  auto note = [&](const LdsConflict& c) {
    if (!found) {
      found = c;
      return true;
    }
    const bool same = c.other_wave == found->other_wave && c.other_inst == found->other_inst &&
                      c.other_write == found->other_write;
    if (same) found->bytes += 4;
    return same;
  };
  for (uint32_t d = first; d < first + count; ++d) {
    touch(d);
    const bool open = !found || found->byte_address + found->bytes == d * 4;
    bool noted = false;
    Writer& w = writers_[d];
    if (open && w.cls != AsyncClass::None && conflicts(a, w.wave, w.cls, w.seq, states))
      noted = note(LdsConflict{d * 4, 4, w.wave, w.inst, true, w.cls, w.seq});
    Reader* readers = &readers_[size_t(d) * waves_];
    if (a.write) {
      for (uint16_t r = 0; r < waves_ && open && !noted; ++r)
        if (readers[r].seq != 0 && conflicts(a, r, AsyncClass::Lds, readers[r].seq, states))
          noted = note(LdsConflict{d * 4, 4, r, readers[r].inst, false, AsyncClass::Lds, readers[r].seq});
      w = Writer{generation_, a.seq, a.inst, a.wave, a.cls};
    } else {
      readers[a.wave] = Reader{a.seq, a.inst};
    }
  }
  return found;
}

}  // namespace cdna4::emu
