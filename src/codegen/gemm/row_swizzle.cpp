#include "codegen/gemm/row_swizzle.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "common/lds_rules.hpp"

namespace cdna4::codegen {

namespace {

int parity(unsigned x) { return std::popcount(x) & 1; }

int swizzle_of(const RowSwizzle& s, unsigned t) {
  int v = 0;
  for (int i = 0; i < s.bits; ++i) v |= parity(t & s.masks[size_t(i)]) << i;
  return v;
}

bool invertible(const RowSwizzle& s) {
  std::array<uint8_t, 4> rows = s.masks;
  const int n = std::min(s.bits, int(rows.size()));
  for (int col = 0; col < n; ++col) {
    int pivot = -1;
    for (int r = col; r < n; ++r)
      if (rows[size_t(r)] >> col & 1) pivot = r;
    if (pivot < 0) return false;
    std::swap(rows[size_t(col)], rows[size_t(pivot)]);
    for (int r = 0; r < n; ++r)
      if (r != col && (rows[size_t(r)] >> col & 1)) rows[size_t(r)] ^= rows[size_t(col)];
  }
  return true;
}

}  // namespace

int row_swizzle_conflict_clocks(const RowSwizzle& s, int tile_row_bytes, int swizzle_rows, int mfma_rows,
                                int group_unit_shift) {
  const gfx950::LdsRule& rule = gfx950::lds_rule(false, 16);
  const int period = std::max(mfma_rows, swizzle_rows << s.bits);
  std::array<std::vector<uint32_t>, 64> dwords;  // by lane group
  int extra = 0;
  for (int first = 0; first < period; first += mfma_rows) {
    for (uint32_t lane = 0; lane < 64; ++lane) {
      const int row = first + int(lane) % mfma_rows;
      const int unit = (int(lane) / mfma_rows) << group_unit_shift;
      const int position = unit ^ swizzle_of(s, unsigned(row / swizzle_rows) & ((1u << s.bits) - 1));
      const uint32_t dword = uint32_t((int64_t(row) * tile_row_bytes + 16 * position) / 4);
      for (uint32_t d = 0; d < 4; ++d) dwords[gfx950::lds_lane_group(rule, lane)].push_back(dword + d);
    }
    for (std::vector<uint32_t>& group : dwords) {
      if (!group.empty()) extra += int(gfx950::lds_group_clocks(rule, group)) - rule.clocks_per_group;
      group.clear();
    }
  }
  return extra;
}

RowSwizzle pick_row_swizzle(int tile_row_bytes, int swizzle_rows, int swizzle_mask, int mfma_rows, int group_unit_shift) {
  static std::mutex mutex;
  static std::map<std::tuple<int, int, int, int, int>, RowSwizzle> cache;
  const auto key = std::tuple{tile_row_bytes, swizzle_rows, swizzle_mask, mfma_rows, group_unit_shift};
  std::lock_guard lock(mutex);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  RowSwizzle s;
  s.bits = std::countr_zero(unsigned(swizzle_mask + 1));
  for (int i = 0; i < s.bits; ++i) s.masks[size_t(i)] = uint8_t(1u << i);
  RowSwizzle best = s;
  int best_extra = row_swizzle_conflict_clocks(s, tile_row_bytes, swizzle_rows, mfma_rows, group_unit_shift);
  // Every invertible map, in order of its masks, until one is conflict free.
  const unsigned values = 1u << s.bits, combinations = 1u << (s.bits * s.bits);
  for (unsigned code = 0; best_extra > 0 && code < combinations; ++code) {
    for (int i = 0; i < s.bits; ++i) s.masks[size_t(i)] = uint8_t(code >> (i * s.bits) & (values - 1));
    if (!invertible(s)) continue;
    const int extra = row_swizzle_conflict_clocks(s, tile_row_bytes, swizzle_rows, mfma_rows, group_unit_shift);
    if (extra < best_extra) best = s, best_extra = extra;
  }
  cache.emplace(key, best);
  return best;
}

}  // namespace cdna4::codegen
