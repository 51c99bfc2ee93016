#include "runtime/emulator/lds_race_tracker.hpp"

#include <algorithm>

#include "runtime/emulator/async_queue.hpp"

namespace cdna4::emu {

void LdsRaceTracker::reset(uint32_t lds_bytes, uint32_t waves) {
  uint32_t dwords = (lds_bytes + 3) / 4;
  if (waves != waves_ || writers_.size() < dwords) {
    waves_ = waves;
    reader_stride_ = (waves + kWaveBlock - 1) / kWaveBlock * kWaveBlock;
    writers_.assign(dwords, Writer{});
    reader_seq_.assign(size_t(dwords) * reader_stride_, 0);
    reader_inst_.assign(size_t(dwords) * reader_stride_, 0);
    safe_.assign(size_t(waves) * kClasses, Safe{});
    reader_safe_.assign(reader_stride_, kAlwaysSafe);  // the padding waves never read
    generation_ = 0;
  }
  ++generation_;  // invalidates every record lazily
  checking_ = LdsAccess{};
}

void LdsRaceTracker::start(const LdsAccess& a, const std::vector<const AsyncState*>& states) {
  checking_ = a;
  states_ = &states;
  if (++stamp_ == 0) {  // wrapped: no remembered safe point may pass for current
    std::fill(safe_.begin(), safe_.end(), Safe{});
    stamp_ = 1;
  }
  if (a.write)
    for (uint16_t r = 0; r < waves_; ++r) reader_safe_[r] = safe_upto(r, AsyncClass::Lds);
}

// Within one wave one queue completes in order, two queues do not: the other
// queue's operation is safe once waited for. Another wave's operation is safe
// once waited for in an epoch (barriers passed) before the checking wave's:
// the last checkpoint of an earlier epoch covers every safe one (checkpoints
// grow in both sequence number and epoch).
uint32_t LdsRaceTracker::compute_safe_upto(uint16_t wave, AsyncClass cls) const {
  if (cls == AsyncClass::None) return kAlwaysSafe;  // no write recorded
  const AsyncState& other = *(*states_)[wave];
  if (wave == checking_.wave) return cls == checking_.cls ? kAlwaysSafe : other.guaranteed_upto[int(cls)];
  const auto& cp = other.checkpoints[int(cls)];
  auto it = std::partition_point(cp.begin(), cp.end(), [&](auto& p) { return p.second < checking_.epoch; });
  return it == cp.begin() ? 0 : std::prev(it)->first;
}

std::optional<LdsConflict> LdsRaceTracker::walk(uint32_t first, uint32_t count) {
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
    const Writer& w = writers_[d];
    if (open && writer_conflicts(w)) noted = note(LdsConflict{d * 4, 4, w.wave, w.inst, true, w.cls, w.seq});
    if (checking_.write) {
      const uint32_t* seq = readers_of(d);
      const uint32_t* inst = &reader_inst_[size_t(d) * reader_stride_];
      for (uint16_t r = 0; r < waves_ && open && !noted; ++r)
        if (seq[r] > reader_safe_[r])
          noted = note(LdsConflict{d * 4, 4, r, inst[r], false, AsyncClass::Lds, seq[r]});
    }
    record(d);
  }
  return found;
}

}  // namespace cdna4::emu
