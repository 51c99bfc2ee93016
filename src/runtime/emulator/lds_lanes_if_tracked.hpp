#pragma once
// LdsLanes built only when the workgroup tracks races: with instant completion
// an instruction's lanes cost no setup of the span list they would never fill.
#include <optional>

#include "runtime/emulator/lds_access.hpp"

namespace cdna4::emu {

class LdsLanesIfTracked {
 public:
  LdsLanesIfTracked(Wave& w, const Inst& in, AsyncClass cls, bool write) {
    if (w.wg->track_races) lanes_.emplace(w, in, cls, write);
  }
  void add(uint32_t address, uint32_t bytes) {
    if (lanes_) lanes_->add(address, bytes);
  }
  void track() {
    if (lanes_) lanes_->track();
  }

 private:
  std::optional<LdsLanes> lanes_;
};

// True when nothing but the bounds is checked lane by lane (instant completion,
// no trace) and every one of the `count` addresses (inactive lanes at 0) is a
// multiple of `align` with `bytes` after it inside LDS: the lane loop that
// checks, traces and tracks can be skipped, as it would find nothing.
inline bool lanes_quietly_inside_lds(const Wave& w, const uint64_t* address, int count, uint32_t bytes,
                                     uint32_t align) {
  if (w.wg->track_races || w.wg->tracer) return false;
  uint64_t bits = 0, high = 0;
  for (int i = 0; i < count; ++i) {
    bits |= address[i];
    high = address[i] > high ? address[i] : high;
  }
  return bits % align == 0 && high + bytes <= w.wg->lds.size();
}

}  // namespace cdna4::emu
