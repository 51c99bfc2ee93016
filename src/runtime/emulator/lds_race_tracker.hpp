#pragma once
// Shadow state of LDS per dword: the last write and each wave's last read, so an
// access that conflicts with another wave's access not separated from it by
// "complete (s_waitcnt) then s_barrier" is reported instead of passing by luck.
//
// Whether a recorded access (wave, class, seq) conflicts with the access being
// checked is one comparison, seq > safe point: the other wave's operations of
// that class are safe up to a sequence number, fixed while one instruction
// runs (async_queue.hpp). So the common case, no conflict anywhere in a lane's
// dwords, is a few compares per dword and the dword-by-dword walk that finds
// and grows a conflict runs only for a lane that has one. An instruction's
// lanes are checked in one call, their safe points settled once.
//
// Blocks of 16 dwords keep a summary on top: the last write all their dwords
// share, if they share one (an LDS-DMA or a full-EXEC ds_write covers whole
// blocks), and per wave the newest read of any of their dwords. A block whose
// summary clears it is checked once instead of dword by dword; any other one is
// checked dword by dword, as before.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "runtime/emulator/lds_lane_cover.hpp"
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

// The dwords consecutive lanes access, each lane (or address of a read2/write2
// lane) `unit` dwords right after the previous one's: count / unit lanes.
// No initialisers: LdsLanes keeps room for 128 on the stack and fills only
// those it uses, so an instruction whose races are not tracked pays nothing.
struct LdsSpan {
  uint32_t first;
  uint32_t count;
  uint32_t unit;
};

class LdsRaceTracker {
 public:
  void reset(uint32_t lds_bytes, uint32_t waves);
  // Checks and records the spans of one instruction's access in lane order, as
  // if one by one: stops after the first span with a conflict and returns the
  // conflict, grown over that span's following dwords that conflict with the
  // same other access. `states[w]` is wave w's async state.
  std::optional<LdsConflict> access(const LdsSpan* spans, size_t count, const LdsAccess& a,
                                    const std::vector<const AsyncState*>& states);
  // An access of `unit` dwords by each lane of `exec`, the lane's first dword at
  // (address[lane] + offset) / 4, inside LDS. When no dword conflicts, records what
  // access() would record for the lanes' spans and returns true; else records
  // nothing and returns false (access() then finds the conflict). A block whose
  // dwords share their last write is checked once, not per lane. A write is
  // taken here only with every lane active (else false, as for a conflict).
  bool lanes_if_clear(const uint32_t* address, uint64_t exec, uint32_t offset, uint32_t unit, const LdsAccess& a,
                      const std::vector<const AsyncState*>& states);

 private:
  template <uint32_t kUnit> bool read_lanes_if_clear(const uint32_t* address, uint64_t exec, uint32_t offset);
  // A full-EXEC access by the cover of its lanes (lds_lane_cover.hpp), the instruction's last
  // one reused when the lanes match it: each piece's block checked, then every piece recorded.
  template <bool kWrite> bool cover_if_clear(const LdsLaneCover& cover, uint32_t lowest);
  // Whether no dword of a block of mixed last writes has one above its (settled) safe point.
  bool mixed_block_clear(uint32_t block);
  // A read checks the blocks between its lowest and highest lane at once up to this many.
  static constexpr uint32_t kRangeBlocks = 128;
  static constexpr uint32_t kAlwaysSafe = 0xffffffffu;
  static constexpr uint32_t kWaveBlock = 8;  // reader rows padded to a multiple of this many waves
  static constexpr uint32_t kClasses = 4;    // AsyncClass values

  // A new access: its safe points are settled when first needed (a write's readers' at once).
  void start(const LdsAccess& a, const std::vector<const AsyncState*>& states);
  static uint32_t key(uint16_t wave, AsyncClass cls) { return uint32_t(wave) * kClasses + uint32_t(cls); }
  // Operations of (wave, class) = key up to this sequence number do not conflict with the access being checked.
  uint32_t safe_upto(uint32_t key) {
    if (safe_stamp_[key] != stamp_) settle(key);
    return safe_row_[key];
  }
  void settle(uint32_t key);
  void settle_writers(uint32_t first, uint32_t end);  // the safe points of the dwords' last writers
  void settle_readers();  // reader_safe_ exact for this access (a write)
  // An unsettled safe point is a lower bound, so what it does not clear is settled and checked again.
  bool writer_conflicts(uint32_t d) {
    const uint32_t seq = writer_seq_[d], k = writer_key_[d];
    return seq > safe_row_[k] && seq > safe_upto(k);
  }
  // Reader sequence numbers are kept biased (seq ^ 0x80000000, so "none", 0, is the
  // least) to compare them as signed numbers, four waves at a time.
  static int32_t biased(uint32_t seq) { return int32_t(seq ^ 0x80000000u); }
  static uint32_t unbiased(int32_t b) { return uint32_t(b) ^ 0x80000000u; }
  // Whether any of the waves' biased read sequence numbers in `seq` (a row of reader_stride_) is above its safe point.
  bool row_conflicts(const int32_t* seq) const;
  bool readers_conflict(uint32_t d) const {
    for (uint32_t r = 0; r < waves_; ++r)
      if (reader_column(r)[d] > reader_safe_[r]) return true;
    return false;
  }
  int32_t* reader_column(uint32_t wave) { return reader_seq_.data() + size_t(wave) * reader_column_; }
  const int32_t* reader_column(uint32_t wave) const { return reader_seq_.data() + size_t(wave) * reader_column_; }
  static constexpr uint32_t kBlockDwords = 16;
  static constexpr uint16_t kMixed = 0xffff;  // block_writer_key_: the block's dwords' last writes differ
  // The block's summaries after `first..end` (inside it) were written by key/seq or read by wave at (biased) seq.
  void note_block_write(uint32_t block, uint32_t first, uint32_t end, uint16_t key, uint32_t seq) {
    if (end - first == kBlockDwords) {
      block_writer_key_[block] = key;
      block_writer_seq_[block] = seq;
    } else if (block_writer_key_[block] != key || block_writer_seq_[block] != seq) {
      block_writer_key_[block] = kMixed;
    }
  }
  void note_block_read(uint32_t block, uint16_t wave, int32_t biased_seq) {
    int32_t& newest = block_reader_seq_[size_t(block) * reader_stride_ + wave];
    newest = std::max(newest, biased_seq);
  }
  template <bool kWrite> std::optional<LdsConflict> each_span(const LdsSpan* spans, size_t count);
  // Whether no dword of [first, end) conflicts, then recorded (a read: each dword it passed).
  struct Quick;
  template <bool kWrite> bool quick(const Quick& q, uint32_t first, uint32_t end);
  bool whole_blocks_written(const Quick& q, uint32_t first, uint32_t end);
  template <bool kWrite> [[gnu::noinline]] std::optional<LdsConflict> doubted(const Quick& q, const LdsSpan& span);
  // The exact check of a span the quick one doubted: settles what it needs, then walks or records.
  std::optional<LdsConflict> recheck(uint32_t first, uint32_t count);
  void record(uint32_t d) {
    if (checking_.write) {
      writer_seq_[d] = checking_.seq;
      writer_key_[d] = uint16_t(key(checking_.wave, checking_.cls));
      note_block_write(d / kBlockDwords, d, d + 1, writer_key_[d], checking_.seq);
    } else {
      reader_column(checking_.wave)[d] = biased(checking_.seq);
      note_block_read(d / kBlockDwords, checking_.wave, biased(checking_.seq));
    }
  }
  // The instruction of (wave, class) = key's access number seq: the records keep only
  // sequence numbers, each access's instruction is noted once (start()).
  uint32_t inst_of(uint32_t key, uint32_t seq) const { return inst_log_[key][seq]; }
  // Dword by dword: finds the first conflict and grows it, recording as it goes.
  std::optional<LdsConflict> walk(uint32_t first, uint32_t count);

  LdsAccess checking_{};
  const std::vector<const AsyncState*>* states_ = nullptr;
  uint32_t stamp_ = 0;                   // counts accesses: a safe point is settled for this one
  // Safe points by checking (wave, class), then by other (wave, class): the last one settled
  // for such an access. They only grow during a workgroup's run (more waited for, more
  // barriers passed), so an old one is a lower bound for the next access; 0 at the start.
  std::vector<uint32_t> safe_;
  uint32_t* safe_row_ = nullptr;         // the access being checked's row of safe_
  std::vector<uint32_t> safe_stamp_;     // [wave][class]: == stamp_ once settled for this access
  std::vector<int32_t> reader_safe_;     // [wave]: biased safe point of its LDS reads, for a write; padded
  bool readers_settled_ = false;         // reader_safe_ settled for this access, else lower bounds
  uint32_t waves_ = 0;
  uint32_t reader_stride_ = 0;           // waves rounded up to kWaveBlock
  uint32_t reader_column_ = 0;           // dwords of a wave's column of reader_seq_
  // Records since reset are in dwords [touched_first_, touched_end_); every other one is empty.
  uint32_t touched_first_ = ~0u, touched_end_ = 0;
  std::vector<LdsLaneCover> covers_;  // [instruction]: its last full-EXEC access's cover
  std::vector<std::vector<uint32_t>> inst_log_;  // [key(wave, class)][seq]: instruction index
  std::vector<uint32_t> writer_seq_;     // [dword]: seq of the last write, 0: none
  std::vector<uint16_t> writer_key_;     // [dword]: key(wave, class) of the last write
  // [wave][dword]: biased seq of the wave's last read; by wave, so that a read records
  // its dwords side by side (a write looks at them only when its block's summary doubts).
  std::vector<int32_t> reader_seq_;
  std::vector<uint32_t> block_writer_seq_;  // [block]: the seq of its dwords' last writes, unless kMixed
  std::vector<uint16_t> block_writer_key_;  // [block]: their key(wave, class), or kMixed
  std::vector<int32_t> block_reader_seq_;   // [block][wave]: biased, at least its dwords' reader_seq_
};

inline bool LdsRaceTracker::row_conflicts(const int32_t* seq) const {
  using Four = int32_t __attribute__((vector_size(16)));
  Four above{};
  auto compare = [&](uint32_t r) {
    Four s, safe;
    std::memcpy(&s, seq + r, sizeof s);
    std::memcpy(&safe, &reader_safe_[r], sizeof safe);
    above |= s > safe;
  };
  if (reader_stride_ == kWaveBlock) {  // up to 8 waves, the common case: unrolled
    compare(0);
    compare(4);
  } else {
    for (uint32_t r = 0; r < reader_stride_; r += 4) compare(r);
  }
  uint64_t halves[2];
  std::memcpy(halves, &above, sizeof halves);
  return (halves[0] | halves[1]) != 0;
}

}  // namespace cdna4::emu
