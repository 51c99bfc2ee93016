#pragma once
// LDS reads and writes as seen by instructions: bounds checks and race tracking.
#include <cstdint>

#include "runtime/emulator/workgroup.hpp"

namespace cdna4::emu {

[[noreturn]] void fail_lds_range(Wave& w, const Inst& in, uint64_t address, uint32_t bytes);

// Fails the run unless [address, address + bytes) is inside the workgroup's LDS
// and dword aligned. Inline: every lane of every DS instruction passes here.
inline void check_lds_range(Wave& w, const Inst& in, uint64_t address, uint32_t bytes) {
  if (address % 4 != 0 || address + bytes > w.wg->lds.size()) [[unlikely]]
    fail_lds_range(w, in, address, bytes);
}
// The same for a byte or short access (1 or 2 bytes), which must be naturally aligned.
void check_lds_sub_dword_range(Wave& w, const Inst& in, uint64_t address, uint32_t bytes);

// The LDS accesses of one instruction's lanes, in lane order, checked for races
// and recorded in one go by track() just before the operation is submitted
// (the race tracker needs its sequence number). On a conflict the first is
// reported and the lanes after it are not recorded. Nothing is kept, and
// nothing set up, when races are not tracked (instant completion).
class LdsLanes {
 public:
  LdsLanes(Wave& w, const Inst& in, AsyncClass cls, bool write)
      : wave_(w), inst_(in), cls_(cls), write_(write), on_(w.wg->track_races) {}
  // A lane right after the previous one joins its span: one check for both when neither conflicts.
  void add(uint32_t address, uint32_t bytes) {
    if (!on_) return;
    const uint32_t first = address / 4, unit = (bytes + 3) / 4;
    if (count_ > 0) {
      LdsSpan& last = spans_[count_ - 1];
      if (last.first + last.count == first && last.unit == unit) {
        last.count += unit;
        return;
      }
    }
    spans_[count_++] = LdsSpan{first, unit, unit};
  }
  // `lanes` lanes of `bytes` each, back to back from `address`: as many add()s.
  void add_lanes(uint32_t address, uint32_t bytes, uint32_t lanes) {
    if (!on_ || lanes == 0) return;
    add(address, bytes);
    spans_[count_ - 1].count += (lanes - 1) * ((bytes + 3) / 4);
  }
  // The lanes of `exec`, each `bytes` at address[lane] + offset: as many add()s, in lane order.
  void add_each(const uint32_t* address, uint64_t exec, uint32_t offset, uint32_t bytes);
  void track() {
    if (on_ && count_ > 0) track_spans();
  }

 private:
  void track_spans();
  Wave& wave_;
  const Inst& inst_;
  AsyncClass cls_;
  bool write_;
  bool on_;
  uint32_t count_ = 0;
  LdsSpan spans_[2 * kLanes];  // read2 / write2: two per lane
};

// True when no trace is recorded and every active lane's address plus each of
// the offsets in [offset_low, offset_high] is a multiple of `align` with `bytes`
// after it inside LDS: the lane loop that checks and traces can be skipped, as
// it would find nothing. (A false answer only sends the instruction down that loop.)
inline bool lanes_untraced_inside_lds(const Wave& w, const uint32_t* address, uint64_t exec, uint32_t offset_low,
                                      uint32_t offset_high, uint32_t bytes, uint32_t align) {
  if (w.wg->tracer) return false;
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

// The active lanes' reads or writes of `bytes` (whole dwords, at most 16) at
// address[lane] + offset, all inside LDS, tracked for races as LdsLanes would
// track them one lane after another, but without a span per lane when none conflicts.
void track_lanes(Wave& w, const Inst& in, const uint32_t* address, uint64_t exec, uint32_t offset, uint32_t bytes,
                 bool write);

}  // namespace cdna4::emu
