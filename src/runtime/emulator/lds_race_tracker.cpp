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
  reader_memo_.assign(waves, Verdict{});
  writer_memo_ = Verdict{};
  checking_ = LdsAccess{};
}

void LdsRaceTracker::begin(const LdsAccess& a) {
  if (a.wave == checking_.wave && a.cls == checking_.cls && a.seq == checking_.seq && a.epoch == checking_.epoch &&
      a.write == checking_.write)
    return;
  checking_ = a;
  writer_memo_ = Verdict{};
  for (Verdict& v : reader_memo_) v = Verdict{};
}

void LdsRaceTracker::touch(uint32_t dword) {
  Writer& w = writers_[dword];
  if (w.generation == generation_) return;
  w = Writer{generation_, 0, 0, 0, AsyncClass::None};
  Reader* r = &readers_[size_t(dword) * waves_];
  for (uint32_t i = 0; i < waves_; ++i) r[i] = Reader{};
}

bool LdsRaceTracker::decide(const LdsAccess& a, uint16_t other_wave, AsyncClass other_cls, uint32_t other_seq,
                            const std::vector<const AsyncState*>& states, Verdict& memo) {
  const AsyncState& other = *states[other_wave];
  bool conflict;
  if (other_wave == a.wave)  // one queue completes in order; two queues do not
    conflict = other_cls != a.cls && !other.guaranteed(other_cls, other_seq);
  else
    conflict = a.epoch <= other.guarantee_epoch(other_cls, other_seq);
  memo = Verdict{other_wave, other_cls, other_seq, conflict};
  return conflict;
}

std::optional<LdsConflict> LdsRaceTracker::access(uint32_t first, uint32_t count, const LdsAccess& a,
                                                  const std::vector<const AsyncState*>& states) {
  begin(a);
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
    if (open && w.cls != AsyncClass::None && conflicts(a, w.wave, w.cls, w.seq, states, writer_memo_))
      noted = note(LdsConflict{d * 4, 4, w.wave, w.inst, true, w.cls, w.seq});
    Reader* readers = &readers_[size_t(d) * waves_];
    if (a.write) {
      for (uint16_t r = 0; r < waves_ && open && !noted; ++r)
        if (readers[r].seq != 0 && conflicts(a, r, AsyncClass::Lds, readers[r].seq, states, reader_memo_[r]))
          noted = note(LdsConflict{d * 4, 4, r, readers[r].inst, false, AsyncClass::Lds, readers[r].seq});
      w = Writer{generation_, a.seq, a.inst, a.wave, a.cls};
    } else {
      readers[a.wave] = Reader{a.seq, a.inst};
    }
  }
  return found;
}

}  // namespace cdna4::emu
