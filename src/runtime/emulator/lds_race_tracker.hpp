#pragma once
// Shadow state of LDS per dword: the last write and each wave's last read, so an
// access that conflicts with another wave's access not separated from it by
// "complete (s_waitcnt) then s_barrier" is reported instead of passing by luck.
//
// Whether a recorded access (wave, class, seq) conflicts with the access being
// checked is one comparison, seq > safe_upto: the other wave's operations of
// that class are safe up to a sequence number, fixed while one instruction
// runs (async_queue.hpp). So the common case, no conflict anywhere in a lane's
// dwords, is a few compares per dword (the last readers of all waves side by
// side) and the dword-by-dword walk that finds and grows a conflict runs only
// for a lane that has one.
#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/emulator/program.hpp"

namespace cdna4::emu {

struct AsyncState;

struct LdsAccess {
  uint16_t wave = 0;
  AsyncClass cls = AsyncClass::Lds;  // Lds for ds_*, Vector for LDS-DMA loads
  uint32_t seq = 0;
  uint32_t inst = 0;
  uint32_t epoch = 0;                // barriers the wave has passed
  bool write = false;
};

// The first conflicting dwords of an access: contiguous, all with the same other access.
struct LdsConflict {
  uint32_t byte_address = 0;
  uint32_t bytes = 0;
  uint16_t other_wave = 0;
  uint32_t other_inst = 0;
  bool other_write = false;
  AsyncClass other_cls = AsyncClass::Lds;
  uint32_t other_seq = 0;
};

class LdsRaceTracker {
 public:
  void reset(uint32_t lds_bytes, uint32_t waves);
  // Checks dwords [first, first + count) and records the access. Returns the
  // first conflict found, if any, grown over the following dwords that conflict
  // with the same access. `states[w]` is wave w's async state.
  std::optional<LdsConflict> access(uint32_t first, uint32_t count, const LdsAccess& a,
                                    const std::vector<const AsyncState*>& states) {
    begin(a, states);
    if (clear(first, count)) {
      record(first, count);
      return std::nullopt;
    }
    return walk(first, count);
  }

 private:
  static constexpr uint32_t kAlwaysSafe = 0xffffffffu;
  static constexpr uint32_t kWaveBlock = 8;  // readers compared a block of waves at a time

  struct Writer {
    uint32_t generation = 0;
    uint32_t seq = 0;  // 0: no write recorded
    uint32_t inst = 0;
    uint16_t wave = 0;
    AsyncClass cls = AsyncClass::None;
  };
  struct Safe {
    uint32_t stamp = 0;  // == stamp_: `upto` holds for the access being checked
    uint32_t upto = 0;
  };

  // A new access (the next instruction, mostly) forgets the safe points of the last.
  void begin(const LdsAccess& a, const std::vector<const AsyncState*>& states) {
    if (a.wave != checking_.wave || a.cls != checking_.cls || a.seq != checking_.seq || a.epoch != checking_.epoch ||
        a.write != checking_.write)
      start(a, states);
  }
  void start(const LdsAccess& a, const std::vector<const AsyncState*>& states);
  // Operations of (wave, cls) up to this sequence number do not conflict with the access being checked.
  uint32_t safe_upto(uint16_t wave, AsyncClass cls) {
    Safe& s = safe_[size_t(wave) * kClasses + size_t(cls)];
    if (s.stamp != stamp_) s = Safe{stamp_, compute_safe_upto(wave, cls)};
    return s.upto;
  }
  uint32_t compute_safe_upto(uint16_t wave, AsyncClass cls) const;
  bool writer_conflicts(const Writer& w) { return w.seq > safe_upto(w.wave, w.cls); }
  bool readers_conflict(const uint32_t* seq) const {
    bool any = false;
    for (uint32_t block = 0; block < reader_stride_; block += kWaveBlock)
      for (uint32_t r = 0; r < kWaveBlock; ++r) any |= seq[block + r] > reader_safe_[block + r];
    return any;
  }
  uint32_t* readers_of(uint32_t dword) { return &reader_seq_[size_t(dword) * reader_stride_]; }

  // Whether no dword of [first, first + count) conflicts.
  bool clear(uint32_t first, uint32_t count) {
    for (uint32_t d = first; d < first + count; ++d) {
      const Writer& w = writers_[d];
      if (w.generation != generation_) continue;
      if (writer_conflicts(w)) return false;
      if (checking_.write && readers_conflict(readers_of(d))) return false;
    }
    return true;
  }
  // A record of an earlier run of the workgroup is no record.
  void touch(uint32_t dword) {
    Writer& w = writers_[dword];
    if (w.generation == generation_) return;
    w = Writer{generation_, 0, 0, 0, AsyncClass::None};
    uint32_t* seq = readers_of(dword);
    for (uint32_t r = 0; r < reader_stride_; ++r) seq[r] = 0;
  }
  void record(uint32_t dword) {
    touch(dword);
    if (checking_.write) {
      writers_[dword] = Writer{generation_, checking_.seq, checking_.inst, checking_.wave, checking_.cls};
    } else {
      readers_of(dword)[checking_.wave] = checking_.seq;
      reader_inst_[size_t(dword) * reader_stride_ + checking_.wave] = checking_.inst;
    }
  }
  void record(uint32_t first, uint32_t count) {
    for (uint32_t d = first; d < first + count; ++d) record(d);
  }
  // Dword by dword: finds the first conflict and grows it, recording as it goes.
  std::optional<LdsConflict> walk(uint32_t first, uint32_t count);

  static constexpr size_t kClasses = 4;  // AsyncClass values
  LdsAccess checking_{};
  const std::vector<const AsyncState*>* states_ = nullptr;
  uint32_t stamp_ = 0;
  std::vector<Safe> safe_;               // [wave][class]
  std::vector<uint32_t> reader_safe_;    // [wave]: safe_upto(wave, Lds) for a write, padded to the stride
  uint32_t generation_ = 0;
  uint32_t waves_ = 0;
  uint32_t reader_stride_ = 0;           // waves rounded up to kWaveBlock
  std::vector<Writer> writers_;
  std::vector<uint32_t> reader_seq_;     // [dword][wave]: seq of the wave's last read, 0: none
  std::vector<uint32_t> reader_inst_;    // [dword][wave]: its instruction
};

}  // namespace cdna4::emu
