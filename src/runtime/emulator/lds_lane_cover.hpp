#pragma once
// The dwords a full-EXEC DS access's lanes cover (a read's or a write's), sorted,
// merged and cut at the race tracker's blocks, relative to the lowest: an
// instruction's lanes mostly keep their addresses relative to lane 0 (and their
// place in a block) from one run of it to the next, so the cover is worked out
// once and reused while they do. Lanes that are rows of a tile, one lane after
// another in different rows, become a few runs of whole blocks.
#include <cstdint>
#include <vector>

namespace cdna4::emu {

class LdsLaneCover {
 public:
  // Dwords [first, first + count) after the lowest one, inside one block; `opens` when
  // no piece before it lies in its block (pieces are sorted, so they follow each other).
  struct Piece {
    uint32_t first;
    uint16_t count;
    uint16_t block;  // after the lowest dword's block
    bool opens;
  };

  // Whether `address` (64 lanes, each reading `unit` dwords from (address + offset) / 4,
  // dword aligned) covers what this pattern holds, shifted.
  bool matches(const uint32_t* address, uint32_t offset, uint32_t unit, uint32_t block_dwords) const {
    if (offset != offset_ || unit != unit_) return false;
    const uint32_t base = address[0];
    uint32_t differ = 0;
    for (int l = 0; l < 64; ++l) differ |= (address[l] - base) ^ relative_[l];  // no branch: vectorised
    return differ == 0 && (lowest(address) % block_dwords) == phase_;
  }
  void build(const uint32_t* address, uint32_t offset, uint32_t unit, uint32_t block_dwords);
  // The lowest dword any lane reads, for addresses that match.
  uint32_t lowest(const uint32_t* address) const { return (address[0] + offset_) / 4 - below_lane0_; }
  // The dwords from the lowest to the end of the highest read.
  uint32_t span() const { return span_; }
  const std::vector<Piece>& pieces() const { return pieces_; }

 private:
  uint32_t offset_ = 0, unit_ = 0;  // unit 0: nothing built
  uint32_t relative_[64] = {};      // address[l] - address[0]
  uint32_t below_lane0_ = 0;        // lane 0's first dword - the lowest
  uint32_t phase_ = 0;              // the lowest dword's place in its block
  uint32_t span_ = 0;
  std::vector<Piece> pieces_;
};

}  // namespace cdna4::emu
