#include "runtime/emulator/access_summary.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace cdna4::emu {

uint32_t lds_bank_cycles(std::span<const LaneAccess> lanes, bool write, bool transpose) {
  if (lanes.empty()) return 1;
  std::array<uint32_t, 64> bytes_of_lane{};
  for (const LaneAccess& a : lanes) bytes_of_lane[a.lane % 64] += a.bytes;
  const uint32_t lane_bytes = *std::max_element(bytes_of_lane.begin(), bytes_of_lane.end());
  const gfx950::LdsRule& rule = gfx950::lds_rule(write, lane_bytes, transpose);
  std::array<std::vector<uint32_t>, 64> dwords;  // by group
  for (const LaneAccess& a : lanes)
    for (uint32_t b = 0; b < a.bytes; b += kLdsBankBytes)
      dwords[gfx950::lds_lane_group(rule, a.lane % 64)].push_back(uint32_t((a.address + b) / kLdsBankBytes));
  uint32_t cycles = 0;
  for (auto& group : dwords) cycles += gfx950::lds_group_clocks(rule, group);
  return std::max(cycles, gfx950::lds_address_clocks(rule));
}

uint32_t distinct_cache_lines(std::span<const LaneAccess> lanes) {
  std::vector<uint64_t> lines;
  lines.reserve(lanes.size());
  for (const LaneAccess& a : lanes) {
    if (a.bytes == 0) continue;
    for (uint64_t line = a.address / kCacheLineBytes; line <= (a.address + a.bytes - 1) / kCacheLineBytes; ++line)
      lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  return uint32_t(std::unique(lines.begin(), lines.end()) - lines.begin());
}

void TraceRecorder::add_read_lines() {
  for (const LaneAccess& a : lanes) {
    if (a.bytes == 0) continue;
    for (uint64_t line = a.address / kCacheLineBytes; line <= (a.address + a.bytes - 1) / kCacheLineBytes; ++line) {
      if (trace.read_lines.size() >= footprint_lines) return;
      if (!seen_lines.insert(line).second) continue;
      const size_t capacity = trace.read_lines.capacity();
      trace.read_lines.push_back(line);
      seen_bytes += kSeenLineBytes;
      charge(kSeenLineBytes + int64_t((trace.read_lines.capacity() - capacity) * sizeof(uint64_t)));
    }
  }
}

}  // namespace cdna4::emu
