#include "runtime/emulator/lds_lane_cover.hpp"

#include <algorithm>

namespace cdna4::emu {

void LdsLaneCover::build(const uint32_t* address, uint32_t offset, uint32_t unit, uint32_t block_dwords) {
  offset_ = offset;
  unit_ = unit;
  uint32_t first[64];
  for (int l = 0; l < 64; ++l) {
    relative_[l] = address[l] - address[0];
    first[l] = (address[l] + offset) / 4;
  }
  std::sort(std::begin(first), std::end(first));
  const uint32_t low = first[0];
  below_lane0_ = (address[0] + offset) / 4 - low;
  phase_ = low % block_dwords;
  pieces_.clear();
  // Merged runs [start, end) of the lanes' dwords, each cut where a block ends.
  auto add_run = [&](uint32_t start, uint32_t end) {
    while (start < end) {
      const uint32_t block_end = (start / block_dwords + 1) * block_dwords;
      const uint32_t stop = std::min(end, block_end);
      const uint32_t block = start / block_dwords - low / block_dwords;
      const bool opens = pieces_.empty() || pieces_.back().block != block;
      pieces_.push_back(Piece{start - low, uint16_t(stop - start), uint16_t(block), opens});
      start = stop;
    }
  };
  uint32_t start = first[0], end = first[0] + unit;
  for (int l = 1; l < 64; ++l) {
    if (first[l] <= end) {
      end = std::max(end, first[l] + unit);
      continue;
    }
    add_run(start, end);
    start = first[l];
    end = first[l] + unit;
  }
  add_run(start, end);
  span_ = end - low;
}

}  // namespace cdna4::emu
