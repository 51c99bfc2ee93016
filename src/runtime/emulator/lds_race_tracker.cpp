#include "runtime/emulator/lds_race_tracker.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "runtime/emulator/async_queue.hpp"

namespace cdna4::emu {

void LdsRaceTracker::reset(uint32_t lds_bytes, uint32_t waves) {
  const uint32_t dwords = (lds_bytes + 3) / 4;
  if (waves != waves_ || writer_seq_.size() < dwords) {
    waves_ = waves;
    reader_stride_ = (waves + kWaveBlock - 1) / kWaveBlock * kWaveBlock;
    writer_seq_.assign(dwords, 0);
    writer_key_.assign(dwords, 0);
    reader_column_ = dwords;
    reader_seq_.assign(size_t(dwords) * waves, biased(0));
    const uint32_t blocks = (dwords + kBlockDwords - 1) / kBlockDwords;
    block_writer_seq_.assign(blocks, 0);
    block_writer_key_.assign(blocks, 0);
    block_reader_seq_.assign(size_t(blocks) * reader_stride_, biased(0));
    safe_.assign(size_t(waves) * kClasses * waves * kClasses, 0);
    inst_log_.resize(size_t(waves) * kClasses);
    safe_stamp_.assign(size_t(waves) * kClasses, 0);
    reader_safe_.assign(reader_stride_, biased(kAlwaysSafe));  // the padding waves never read
    stamp_ = 0;
  } else if (touched_first_ < touched_end_) {
    std::fill(writer_seq_.begin() + touched_first_, writer_seq_.begin() + touched_end_, 0);
    for (uint32_t r = 0; r < waves_; ++r)
      std::fill(reader_column(r) + touched_first_, reader_column(r) + touched_end_, biased(0));
    // Every dword's last write is "none" again (seq 0, whatever its key): blocks of one writer.
    const uint32_t first_block = touched_first_ / kBlockDwords;
    const uint32_t end_block = (touched_end_ + kBlockDwords - 1) / kBlockDwords;
    std::fill(block_writer_seq_.begin() + first_block, block_writer_seq_.begin() + end_block, 0);
    std::fill(block_writer_key_.begin() + first_block, block_writer_key_.begin() + end_block, 0);
    std::fill(block_reader_seq_.begin() + size_t(first_block) * reader_stride_,
              block_reader_seq_.begin() + size_t(end_block) * reader_stride_, biased(0));
  }
  touched_first_ = ~0u;
  touched_end_ = 0;
  std::fill(safe_.begin(), safe_.end(), 0);
  for (auto& log : inst_log_) log.clear();
}

void LdsRaceTracker::start(const LdsAccess& a, const std::vector<const AsyncState*>& states) {
  checking_ = a;
  states_ = &states;
  std::vector<uint32_t>& log = inst_log_[key(a.wave, a.cls)];
  if (log.size() <= a.seq) log.resize(std::max<size_t>(a.seq + 1, 2 * log.size()));  // grown by doubling
  log[a.seq] = a.inst;
  safe_row_ = &safe_[size_t(key(a.wave, a.cls)) * waves_ * kClasses];
  if (++stamp_ == 0) {  // wrapped: no stamp left over may pass for this access's
    std::fill(safe_stamp_.begin(), safe_stamp_.end(), 0);
    stamp_ = 1;
  }
  if (a.write)
    for (uint16_t r = 0; r < waves_; ++r) reader_safe_[r] = biased(safe_row_[key(r, AsyncClass::Lds)]);
  readers_settled_ = false;  // lower bounds until a block's reads need more
}

void LdsRaceTracker::settle_readers() {
  if (readers_settled_) return;
  for (uint16_t r = 0; r < waves_; ++r) reader_safe_[r] = biased(safe_upto(key(r, AsyncClass::Lds)));
  readers_settled_ = true;
}

// Within one wave one queue completes in order, two queues do not: the other
// queue's operation is safe once waited for. Another wave's operation is safe
// once waited for in an epoch (barriers passed) before the checking wave's:
// the last checkpoint of an earlier epoch covers every safe one (checkpoints
// grow in both sequence number and epoch).
void LdsRaceTracker::settle(uint32_t k) {
  const uint16_t wave = uint16_t(k / kClasses);
  const AsyncClass cls = AsyncClass(k % kClasses);
  const AsyncState& other = *(*states_)[wave];
  uint32_t upto;
  if (cls == AsyncClass::None) {
    upto = kAlwaysSafe;  // no write recorded
  } else if (wave == checking_.wave) {
    upto = cls == checking_.cls ? kAlwaysSafe : other.guaranteed_upto[int(cls)];
  } else {
    const auto& cp = other.checkpoints[int(cls)];
    auto it = std::partition_point(cp.begin(), cp.end(), [&](auto& p) { return p.second < checking_.epoch; });
    upto = it == cp.begin() ? 0 : std::prev(it)->first;
  }
  safe_row_[k] = upto;
  safe_stamp_[k] = stamp_;
}

std::optional<LdsConflict> LdsRaceTracker::recheck(uint32_t first, uint32_t count) {
  if (checking_.write) settle_readers();
  for (uint32_t d = first; d < first + count; ++d)
    if (writer_conflicts(d) || (checking_.write && readers_conflict(d))) return walk(first, count);
  for (uint32_t d = first; d < first + count; ++d) record(d);
  return std::nullopt;
}

// The quick check compares against safe points as they stand (0 until settled)
// and leaves anything it doubts to recheck(). It works on local copies of the
// arrays and the access (the compiler cannot tell the records from the members).
struct LdsRaceTracker::Quick {
  uint32_t* writer_seq;
  uint16_t* writer_key;
  const uint32_t* safe;
  int32_t* reader_seq;  // the checking wave's column
  uint32_t stride, seq;
  uint16_t own_key, wave;
};

// A write checks block by block: a block whose dwords share their last write
// checks it once, else each dword's; and the readers of a block only when its
// summary has a read above a safe point. A read inside one such block (a lane's
// dwords, mostly) checks it once too; any other read checks dword by dword.
template <bool kWrite> bool LdsRaceTracker::quick(const Quick& q, uint32_t first, uint32_t end) {
  if constexpr (!kWrite) {
    const uint32_t first_block = first / kBlockDwords;
    if (const uint16_t writer = block_writer_key_[first_block];
        writer != kMixed && (end - 1) / kBlockDwords == first_block) {  // one block, one last write: one check
      if (block_writer_seq_[first_block] > q.safe[writer]) return false;
      note_block_read(first_block, q.wave, biased(q.seq));
      for (uint32_t d = first; d < end; ++d) q.reader_seq[d] = biased(q.seq);
      return true;
    }
    for (uint32_t block = first_block; block * kBlockDwords < end; ++block)
      note_block_read(block, q.wave, biased(q.seq));
    for (uint32_t d = first; d < end; ++d) {
      if (q.writer_seq[d] > q.safe[q.writer_key[d]]) return false;
      // a read's record changes no check of this access, so each dword is recorded once checked
      q.reader_seq[d] = biased(q.seq);
    }
    return true;
  }
  if (first % kBlockDwords == 0 && end % kBlockDwords == 0) return whole_blocks_written(q, first, end);
  for (uint32_t block = first / kBlockDwords, lo = first; lo < end; ++block) {
    const uint32_t hi = std::min(end, (block + 1) * kBlockDwords);
    const uint16_t writer = block_writer_key_[block];
    if (writer != kMixed) {
      if (block_writer_seq_[block] > q.safe[writer]) return false;
    } else {
      for (uint32_t d = lo; d < hi; ++d)
        if (q.writer_seq[d] > q.safe[q.writer_key[d]]) return false;
    }
    if (const int32_t* newest = &block_reader_seq_[size_t(block) * q.stride]; row_conflicts(newest)) {
      settle_readers();
      if (row_conflicts(newest))
        for (uint32_t d = lo; d < hi; ++d)
          if (readers_conflict(d)) return false;
    }
    lo = hi;
  }
  for (uint32_t d = first; d < end; ++d) {
    q.writer_seq[d] = q.seq;
    q.writer_key[d] = q.own_key;
  }
  for (uint32_t block = first / kBlockDwords, lo = first; lo < end; ++block) {
    const uint32_t hi = std::min(end, (block + 1) * kBlockDwords);
    note_block_write(block, lo, hi, q.own_key, q.seq);
    lo = hi;
  }
  return true;
}

// quick<true> for whole blocks (an LDS-DMA's, mostly): each block's summaries
// checked, then its dwords and summary set at once.
bool LdsRaceTracker::whole_blocks_written(const Quick& q, uint32_t first, uint32_t end) {
  const uint32_t first_block = first / kBlockDwords, end_block = end / kBlockDwords;
  const uint16_t* block_key = block_writer_key_.data();
  const uint32_t* block_seq = block_writer_seq_.data();
  for (uint32_t block = first_block; block < end_block; ++block) {
    const uint16_t writer = block_key[block];
    if (writer != kMixed) {
      if (block_seq[block] > q.safe[writer]) return false;
    } else {
      for (uint32_t d = block * kBlockDwords; d < (block + 1) * kBlockDwords; ++d)
        if (q.writer_seq[d] > q.safe[q.writer_key[d]]) return false;
    }
    if (const int32_t* newest = &block_reader_seq_[size_t(block) * q.stride]; row_conflicts(newest)) {
      settle_readers();
      if (row_conflicts(newest))
        for (uint32_t d = block * kBlockDwords; d < (block + 1) * kBlockDwords; ++d)
          if (readers_conflict(d)) return false;
    }
  }
  std::fill(q.writer_seq + first, q.writer_seq + end, q.seq);
  std::fill(q.writer_key + first, q.writer_key + end, q.own_key);
  std::fill(block_writer_key_.begin() + first_block, block_writer_key_.begin() + end_block, q.own_key);
  std::fill(block_writer_seq_.begin() + first_block, block_writer_seq_.begin() + end_block, q.seq);
  return true;
}

void LdsRaceTracker::settle_writers(uint32_t first, uint32_t end) {
  for (uint32_t d = first; d < end; ++d)
    if (writer_seq_[d] > safe_row_[writer_key_[d]]) safe_upto(writer_key_[d]);
}

// A span the quick check doubted, mostly for safe points not settled yet. One
// of several lanes that is still not clear is taken lane by lane, as the lanes
// came: the ones before the conflicting lane are recorded, the ones after it
// are not.
template <bool kWrite> std::optional<LdsConflict> LdsRaceTracker::doubted(const Quick& q, const LdsSpan& span) {
  const uint32_t end = span.first + span.count;
  settle_writers(span.first, end);
  if (quick<kWrite>(q, span.first, end)) return std::nullopt;
  for (uint32_t lane = span.first; lane < end; lane += span.unit)
    if (!quick<kWrite>(q, lane, lane + span.unit))
      if (auto conflict = recheck(lane, span.unit)) return conflict;
  return std::nullopt;
}

template <bool kWrite>
std::optional<LdsConflict> LdsRaceTracker::each_span(const LdsSpan* spans, size_t count) {
  const Quick q{writer_seq_.data(),
                writer_key_.data(),
                safe_row_,
                reader_column(checking_.wave),
                reader_stride_,
                checking_.seq,
                uint16_t(key(checking_.wave, checking_.cls)),
                checking_.wave};
  uint32_t lo = touched_first_, hi = touched_end_;  // what a span may record, before it is checked
  std::optional<LdsConflict> conflict;
  for (size_t i = 0; i < count && !conflict; ++i) {
    const uint32_t first = spans[i].first, end = first + spans[i].count;
    lo = std::min(lo, first);
    hi = std::max(hi, end);
    if (!quick<kWrite>(q, first, end)) [[unlikely]]
      conflict = doubted<kWrite>(q, spans[i]);
  }
  touched_first_ = lo;
  touched_end_ = hi;
  return conflict;
}

std::optional<LdsConflict> LdsRaceTracker::access(const LdsSpan* spans, size_t count, const LdsAccess& a,
                                                  const std::vector<const AsyncState*>& states) {
  start(a, states);
  return a.write ? each_span<true>(spans, count) : each_span<false>(spans, count);
}

std::optional<LdsConflict> LdsRaceTracker::walk(uint32_t first, uint32_t count) {
  if (checking_.write) settle_readers();
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
    const bool open = !found || found->byte_address + found->bytes == d * 4;
    bool noted = false;
    if (open && writer_conflicts(d)) {
      const uint32_t k = writer_key_[d];
      noted = note(LdsConflict{d * 4, 4, uint16_t(k / kClasses), inst_of(k, writer_seq_[d]), true,
                               AsyncClass(k % kClasses), writer_seq_[d]});
    }
    if (checking_.write) {
      for (uint16_t r = 0; r < waves_ && open && !noted; ++r) {
        const int32_t seq = reader_column(r)[d];
        if (seq > reader_safe_[r])
          noted = note(LdsConflict{d * 4, 4, r, inst_of(key(r, AsyncClass::Lds), unbiased(seq)), false,
                                   AsyncClass::Lds, unbiased(seq)});
      }
    }
    record(d);
  }
  return found;
}

}  // namespace cdna4::emu
