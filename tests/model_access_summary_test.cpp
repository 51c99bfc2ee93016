// The trace's memory costs: LDS bank cycles and distinct cache lines.
#include <catch2/catch.hpp>

#include <array>
#include <vector>

#include "runtime/emulator/access_summary.hpp"

using namespace cdna4::emu;

namespace {

std::vector<LaneAccess> lanes(uint32_t bytes, uint64_t stride, uint64_t base = 0) {
  std::vector<LaneAccess> out;
  for (uint32_t l = 0; l < 64; ++l) out.push_back({base + l * stride, bytes, l});
  return out;
}

}  // namespace

TEST_CASE("model: LDS bank cycles by lane group, bank and broadcast", "[model]") {
  const bool read = false, write = true;
  // Reads (common/lds_rules.hpp): b32 16 lanes a clock on 32 banks; b64 2 groups of 32 lanes, b128 4 of 16
  // (interleaved quads), b96 8 of 8 (interleaved), each group 2 clocks.
  CHECK(lds_bank_cycles(lanes(4, 4), read) == 4);       // b32: four groups of 16 lanes
  CHECK(lds_bank_cycles(lanes(4, 8), read) == 4);       // stride 2 dwords: a group spans the 32 banks once
  CHECK(lds_bank_cycles(lanes(4, 16), read) == 8);      // stride 4 dwords: 8 banks, each used twice per group
  CHECK(lds_bank_cycles(lanes(4, 256), read) == 64);    // every lane in bank 0
  CHECK(lds_bank_cycles(lanes(4, 0), read) == 4);       // one address: broadcast, one clock per group
  CHECK(lds_bank_cycles(lanes(8, 8), read) == 4);       // b64: 2 groups of 32 lanes on 64 banks
  CHECK(lds_bank_cycles(lanes(8, 16), read) == 8);      // b64, stride 16 B: a group spans 512 B, 2 per bank
  CHECK(lds_bank_cycles(lanes(16, 16), read) == 8);     // b128: each group's 16 lanes on 64 distinct banks
  CHECK(lds_bank_cycles(lanes(16, 32), read) == 16);    // stride 32 B: lanes 12 and 20 share banks 32-35
  CHECK(lds_bank_cycles(lanes(16, 64), read) == 32);    // stride 64 B: 4 lanes per bank in a group
  CHECK(lds_bank_cycles(lanes(16, 128), read) == 64);   // rows of 128 B: 8 lanes per bank in a group
  CHECK(lds_bank_cycles(lanes(12, 12), read) == 32);    // b96: lanes 0-3 and 20-23 meet on banks 0-7 of 32
  // Every lane of a `bytes`-wide read on the same far dwords (banks 16 on, broadcast)
  // but lane 0 and `other`, both from bank 0 on, at other dwords.
  auto two_lanes_on_bank_0 = [&](uint32_t bytes, uint32_t other) {
    auto l = lanes(bytes, 0, (1u << 20) + 64);
    l[0].address = 0;
    l[other].address = 4096;
    return lds_bank_cycles(l, read);
  };
  // The measured b128 groups: lanes 0 and 12 share a group, lanes 0 and 4 do not.
  CHECK(two_lanes_on_bank_0(16, 12) == 10);  // one group takes 4 clocks
  CHECK(two_lanes_on_bank_0(16, 20) == 10);
  CHECK(two_lanes_on_bank_0(16, 4) == 8);
  CHECK(two_lanes_on_bank_0(16, 16) == 8);
  CHECK(two_lanes_on_bank_0(16, 32) == 8);  // the other half wave
  // The measured b96 groups (per half wave {0-3, 20-23}, {4-7, 16-19}, {8-11, 28-31},
  // {12-15, 24-27}, 2 clocks on 32 banks): lanes 0 and 20 share a group, lanes 0 and 4, 8 or 16 do not.
  CHECK(two_lanes_on_bank_0(12, 20) == 18);  // one group takes 4 clocks
  CHECK(two_lanes_on_bank_0(12, 23) == 18);
  CHECK(two_lanes_on_bank_0(12, 4) == 16);
  CHECK(two_lanes_on_bank_0(12, 8) == 16);
  CHECK(two_lanes_on_bank_0(12, 16) == 16);
  CHECK(two_lanes_on_bank_0(12, 24) == 16);
  CHECK(two_lanes_on_bank_0(12, 52) == 16);  // the other half wave's group of 0-3's place
  // The measured ds_write_b64 groups (16 consecutive lanes, 2 clocks on 32 banks): three
  // lanes moved onto lane 0's banks make its group take 8 clocks when they share it.
  auto b64_writes_on_bank_0 = [&](std::array<uint32_t, 3> moved) {
    auto l = lanes(8, 8);  // every group's 32 dwords on distinct banks: 2 clocks a group
    for (uint32_t i = 0; i < 3; ++i) l[moved[i]].address = 4096 * (i + 1);  // banks 0-1, other dwords
    return lds_bank_cycles(l, write);
  };
  CHECK(b64_writes_on_bank_0({13, 14, 15}) == 14);  // 8 + 3 x 2
  CHECK(b64_writes_on_bank_0({1, 2, 3}) == 14);
  CHECK(b64_writes_on_bank_0({16, 17, 18}) == 12);  // 2 + 6 + 2 + 2, the 12 address clocks
  // Transposing reads: 4 rows of 16 lanes at 2 clocks on 64 banks.
  CHECK(lds_bank_cycles(lanes(8, 8), read, true) == 8);
  CHECK(lds_bank_cycles(lanes(8, 16), read, true) == 8);    // a row spans 256 B: 64 distinct banks
  CHECK(lds_bank_cycles(lanes(8, 32), read, true) == 16);   // a row spans 512 B: 2 per bank
  CHECK(lds_bank_cycles(lanes(8, 8), write, true) == 12);   // writes never transpose
  // Writes: b32 16 lanes a clock, b64 4 groups of 16 lanes at 2 clocks, b128 4 lanes a clock, all on 32
  // banks; at least 4 + 4 per dword clocks.
  CHECK(lds_bank_cycles(lanes(4, 4), write) == 8);      // 4 groups, but 8 address clocks
  CHECK(lds_bank_cycles(lanes(8, 8), write) == 12);     // 4 groups of 2 clocks, 12 address clocks
  CHECK(lds_bank_cycles(lanes(8, 16), write) == 16);    // a group spans 256 B: 2 per bank, 4 clocks
  CHECK(lds_bank_cycles(lanes(16, 16), write) == 20);   // 16 groups, 20 address clocks
  CHECK(lds_bank_cycles(lanes(16, 128), write) == 64);  // rows of 128 B: a group's 4 lanes on banks 0-3
  CHECK(lds_bank_cycles(lanes(4, 128), write) == 64);   // every lane in bank 0: 16 clocks a group
  CHECK(lds_bank_cycles(lanes(4, 0), write) == 64);     // one address: a write is not broadcast, 16 clocks a group
  CHECK(lds_bank_cycles(lanes(16, 0), write) == 64);    // b128: 4 lanes, 4 clocks a group
  // read2_b64 (two 8-byte addresses per lane): 16 B per lane, the b128 groups.
  std::vector<LaneAccess> same_bank;
  for (uint32_t l = 0; l < 64; ++l) {
    same_bank.push_back({l * 8, 8, l});
    same_bank.push_back({4096 + l * 8, 8, l});  // 4096 B = 1024 dwords: the same banks
  }
  CHECK(lds_bank_cycles(same_bank, read) == 16);
  std::vector<LaneAccess> read2;
  for (uint32_t l = 0; l < 64; ++l) {
    read2.push_back({l * 8, 8, l});
    read2.push_back({128 + l * 8, 8, l});  // every group's 64 dwords on distinct banks
  }
  CHECK(lds_bank_cycles(read2, read) == 8);
  // Inactive lanes leave their group empty; the address clocks remain.
  const auto all = lanes(16, 16);
  CHECK(lds_bank_cycles(std::vector<LaneAccess>(all.begin(), all.begin() + 32), read) == 4);
  CHECK(lds_bank_cycles(std::vector<LaneAccess>(all.begin(), all.begin() + 8), read) == 4);
}

TEST_CASE("model: distinct 128-byte lines of a vector memory access", "[model]") {
  CHECK(distinct_cache_lines(lanes(16, 16)) == 8);        // coalesced dwordx4
  CHECK(distinct_cache_lines(lanes(16, 16, 64)) == 9);    // the same, off a line boundary
  CHECK(distinct_cache_lines(lanes(16, 32)) == 16);       // one 32-byte segment per lane
  CHECK(distinct_cache_lines(lanes(4, 128)) == 64);       // one line per lane
  CHECK(distinct_cache_lines(lanes(4, 0)) == 1);          // all lanes on one dword
  CHECK(distinct_cache_lines({}) == 0);
}
