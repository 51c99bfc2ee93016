// The race tracker's quick ways for a whole instruction's lanes (lds_race_tracker.hpp):
// by the cover of its lanes, or a read lane by lane, recorded only when no dword conflicts.
#include "runtime/emulator/lds_race_tracker.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace cdna4::emu {
namespace {

// Sets `count` elements from p to `value`, 16 bytes at a time, the last 16 bytes
// overlapping the ones before: a short run (a piece of a block) without a loop per element.
template <class T> void fill_run(T* p, uint32_t count, T value) {
  constexpr uint32_t kPer = 16 / sizeof(T);
  if (count < kPer) {
    for (uint32_t i = 0; i < count; ++i) p[i] = value;
    return;
  }
  T chunk[kPer];
  for (uint32_t i = 0; i < kPer; ++i) chunk[i] = value;
  for (uint32_t i = 0; i + kPer <= count; i += kPer) std::memcpy(p + i, chunk, sizeof chunk);
  if (count % kPer != 0) std::memcpy(p + count - kPer, chunk, sizeof chunk);
}

}  // namespace

bool LdsRaceTracker::lanes_if_clear(const uint32_t* address, uint64_t exec, uint32_t offset, uint32_t unit,
                                    const LdsAccess& a, const std::vector<const AsyncState*>& states) {
  if (exec == 0) return true;  // no lane: nothing to check or record
  if (unit < 1 || unit > 4 || (a.write && exec != ~uint64_t(0))) return false;
  start(a, states);
  if (exec == ~uint64_t(0)) {
    if (covers_.size() <= a.inst) covers_.resize(a.inst + 1);
    LdsLaneCover& cover = covers_[a.inst];
    if (!cover.matches(address, offset, unit, kBlockDwords)) cover.build(address, offset, unit, kBlockDwords);
    return a.write ? cover_if_clear<true>(cover, cover.lowest(address))
                   : cover_if_clear<false>(cover, cover.lowest(address));
  }
  switch (unit) {
    case 1: return read_lanes_if_clear<1>(address, exec, offset);
    case 2: return read_lanes_if_clear<2>(address, exec, offset);
    case 3: return read_lanes_if_clear<3>(address, exec, offset);
    default: return read_lanes_if_clear<4>(address, exec, offset);
  }
}

bool LdsRaceTracker::mixed_block_clear(uint32_t block) {
  const uint32_t end = std::min<uint32_t>((block + 1) * kBlockDwords, uint32_t(writer_seq_.size()));
  for (uint32_t d = block * kBlockDwords; d < end; ++d)
    if (writer_conflicts(d)) return false;
  return true;
}

// As read_lanes_if_clear<kUnit> below (a write: as quick<true>), piece by piece: a
// block whose dwords share their last write is checked once, a block of mixed ones
// by the dwords the pieces cover; a write's readers by the block's newest reads,
// dword by dword only when those doubt. With no conflict the order of the records
// does not matter, so the pieces are recorded after all are checked.
template <bool kWrite> bool LdsRaceTracker::cover_if_clear(const LdsLaneCover& cover, uint32_t lowest) {
  const std::vector<LdsLaneCover::Piece>& pieces = cover.pieces();
  const uint16_t* block_key = block_writer_key_.data();
  const uint32_t* block_seq = block_writer_seq_.data();
  const uint32_t lowest_block = lowest / kBlockDwords;
  uint16_t writer = 0;
  bool readers_doubt = false;
  for (const LdsLaneCover::Piece& piece : pieces) {
    const uint32_t block = lowest_block + piece.block;
    const uint32_t first = lowest + piece.first, end = first + piece.count;
    if (piece.opens) {
      writer = block_key[block];
      if (writer != kMixed && block_seq[block] > safe_row_[writer] && block_seq[block] > safe_upto(writer))
        return false;
      if constexpr (kWrite) {
        const int32_t* newest = &block_reader_seq_[size_t(block) * reader_stride_];
        readers_doubt = row_conflicts(newest);
        if (readers_doubt) {
          settle_readers();
          readers_doubt = row_conflicts(newest);
        }
      }
    }
    if (writer == kMixed) {
      const uint32_t* writer_seq = writer_seq_.data();
      const uint16_t* writer_key = writer_key_.data();
      for (uint32_t d = first; d < end; ++d)
        if (writer_seq[d] > safe_row_[writer_key[d]] && writer_conflicts(d)) return false;
    }
    if constexpr (kWrite) {
      if (readers_doubt)
        for (uint32_t d = first; d < end; ++d)
          if (readers_conflict(d)) return false;
    }
  }
  const uint32_t seq = checking_.seq;
  if constexpr (kWrite) {
    const uint16_t own_key = uint16_t(key(checking_.wave, checking_.cls));
    for (const LdsLaneCover::Piece& piece : pieces) {
      const uint32_t first = lowest + piece.first, end = first + piece.count;
      fill_run(writer_seq_.data() + first, end - first, seq);
      fill_run(writer_key_.data() + first, end - first, own_key);
      note_block_write(lowest_block + piece.block, first, end, own_key, seq);
    }
  } else {
    int32_t* column = reader_column(checking_.wave);
    int32_t* newest = block_reader_seq_.data() + checking_.wave;  // [block * stride]
    const size_t stride = reader_stride_;
    for (const LdsLaneCover::Piece& piece : pieces) {
      int32_t* dwords = column + lowest + piece.first;
      const int32_t four[4] = {biased(seq), biased(seq), biased(seq), biased(seq)};
      if (piece.count == kBlockDwords) {  // a whole block (rows of ds_read_b128), fixed stores
        for (uint32_t i = 0; i < kBlockDwords; i += 4) std::memcpy(dwords + i, four, sizeof four);
      } else if (piece.count == kBlockDwords / 2) {  // half a block (rows of 8-byte reads)
        for (uint32_t i = 0; i < kBlockDwords / 2; i += 4) std::memcpy(dwords + i, four, sizeof four);
      } else {
        fill_run(dwords, piece.count, biased(seq));
      }
      newest[(lowest_block + piece.block) * stride] = biased(seq);
    }
  }
  touched_first_ = std::min(touched_first_, lowest);
  touched_end_ = std::max(touched_end_, lowest + cover.span());
  return true;
}

// With no conflict the order of the records does not matter, as all carry this
// access's sequence number. So the lanes' dwords are checked first, all of them
// at once when every block from the lowest lane's to the highest lane's clears
// (blocks no lane reads too: a doubt about one of those only sends the check
// lane by lane, to the exact safe points); then all lanes are recorded.
template <uint32_t kUnit> bool LdsRaceTracker::read_lanes_if_clear(const uint32_t* address, uint64_t exec, uint32_t offset) {
  auto each_lane = [exec](auto&& visit) {
    if (exec == ~uint64_t(0)) {
      for (uint32_t l = 0; l < 64; ++l) visit(l);
    } else {
      for (uint64_t left = exec; left != 0; left &= left - 1) visit(uint32_t(std::countr_zero(left)));
    }
  };
  uint32_t low = ~0u, high = 0;
  if (exec == ~uint64_t(0)) {
    for (uint32_t l = 0; l < 64; ++l) {  // no branch: vectorised
      low = address[l] < low ? address[l] : low;
      high = address[l] > high ? address[l] : high;
    }
  } else {
    each_lane([&](uint32_t l) {
      low = std::min(low, address[l]);
      high = std::max(high, address[l]);
    });
  }
  const uint32_t lo = (low + offset) / 4, hi = (high + offset) / 4 + kUnit;
  const uint32_t first_block = lo / kBlockDwords, end_block = (hi - 1) / kBlockDwords + 1;
  bool clear = end_block - first_block <= kRangeBlocks;
  const uint16_t* block_key = block_writer_key_.data();
  const uint32_t* block_seq = block_writer_seq_.data();
  for (uint32_t block = first_block; block < end_block && clear; ++block) {
    const uint16_t writer = block_key[block];
    clear = writer != kMixed ? block_seq[block] <= safe_row_[writer] || block_seq[block] <= safe_upto(writer)
                             : mixed_block_clear(block);
  }
  if (!clear) {
    clear = true;
    each_lane([&](uint32_t l) {
      const uint32_t first = (address[l] + offset) / 4;
      for (uint32_t d = first; d < first + kUnit && clear; ++d) clear = !writer_conflicts(d);
    });
    if (!clear) return false;
  }
  const int32_t seq = biased(checking_.seq);
  int32_t* column = reader_column(checking_.wave);
  // A wave's LDS reads carry increasing sequence numbers: this one is its newest.
  int32_t* newest = block_reader_seq_.data() + checking_.wave;  // [block * stride]
  const size_t stride = reader_stride_;
  each_lane([&](uint32_t l) {
    const uint32_t first = (address[l] + offset) / 4;
    for (uint32_t u = 0; u < kUnit; ++u) column[first + u] = seq;
    newest[first / kBlockDwords * stride] = seq;
    newest[(first + kUnit - 1) / kBlockDwords * stride] = seq;
  });
  touched_first_ = std::min(touched_first_, lo);
  touched_end_ = std::max(touched_end_, hi);
  return true;
}

}  // namespace cdna4::emu
