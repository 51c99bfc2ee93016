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
  void add_lanes(uint32_t address, uint32_t bytes, uint32_t lanes) {
    if (lanes_) lanes_->add_lanes(address, bytes, lanes);
  }
  void track() {
    if (lanes_) lanes_->track();
  }

 private:
  std::optional<LdsLanes> lanes_;
};

// True when nothing but the bounds is checked lane by lane (instant completion,
// no trace) and every active lane's address plus each of the offsets in
// [offset_low, offset_high] is a multiple of `align` with `bytes` after it inside
// LDS: the lane loop that checks, traces and tracks can be skipped, as it would
// find nothing. (A false answer only sends the instruction down that loop.)
inline bool lanes_quietly_inside_lds(const Wave& w, const uint32_t* address, uint64_t exec, uint32_t offset_low,
                                     uint32_t offset_high, uint32_t bytes, uint32_t align) {
  if (w.wg->track_races || w.wg->tracer) return false;
  uint32_t bits = offset_low | offset_high, high = 0;
  if (exec == ~uint64_t(0)) {
    for (int l = 0; l < kLanes; ++l) {  // no branch: vectorised
      bits |= address[l];
      high = address[l] > high ? address[l] : high;
    }
  } else {
    for (int l = 0; l < kLanes; ++l)
      if ((exec >> l) & 1) {
        bits |= address[l];
        high = address[l] > high ? address[l] : high;
      }
  }
  return bits % align == 0 && uint64_t(high) + offset_high + bytes <= w.wg->lds.size();
}

}  // namespace cdna4::emu
