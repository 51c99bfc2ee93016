#pragma once
// The swizzle of a K-contiguous operand tile in LDS (entry.cpp, "Swizzled
// rows"): unit u of row r sits at position u ^ S(t), t = (r / swizzle_rows) mod
// (swizzle_mask + 1), where bit i of S(t) is the parity of t & masks[i]. The
// map is the first (identity first) under which a wave's ds_read_b128 of any
// block of MFMA rows meets no bank conflict in the LDS's lane groups
// (common/lds_rules.hpp), or the one with the fewest.
#include <array>
#include <cstddef>
#include <cstdint>

namespace cdna4::codegen {

struct RowSwizzle {
  std::array<uint8_t, 4> masks{};  // per swizzle bit: the bits of t it XORs
  int bits = 0;                    // log2(swizzle_mask + 1)
  bool identity() const {
    for (int i = 0; i < bits; ++i)
      if (masks[std::size_t(i)] != 1u << i) return false;
    return true;
  }
};

// tile_row_bytes: bytes of one tile row; mfma_rows: 16 or 32; group_unit_shift:
// log2 of the 16-byte units between consecutive lane groups' K pieces.
RowSwizzle pick_row_swizzle(int tile_row_bytes, int swizzle_rows, int swizzle_mask, int mfma_rows, int group_unit_shift);

// Extra clocks the LDS spends on bank conflicts over one such read of every
// block start under `s` (0: conflict free); for tests.
int row_swizzle_conflict_clocks(const RowSwizzle& s, int tile_row_bytes, int swizzle_rows, int mfma_rows,
                                int group_unit_shift);

}  // namespace cdna4::codegen
