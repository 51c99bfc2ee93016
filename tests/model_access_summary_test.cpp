// The trace's memory costs: LDS bank cycles and distinct cache lines.
#include <catch2/catch.hpp>

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
  // Reads (common/lds_rules.hpp): b32 16 lanes a clock on 32 banks, b64 16 and b128 8 on 64 banks.
  CHECK(lds_bank_cycles(lanes(4, 4), read) == 4);       // b32: four groups of 16 lanes
  CHECK(lds_bank_cycles(lanes(4, 8), read) == 4);       // stride 2 dwords: a group spans the 32 banks once
  CHECK(lds_bank_cycles(lanes(4, 16), read) == 8);      // stride 4 dwords: 8 banks, each used twice per group
  CHECK(lds_bank_cycles(lanes(4, 256), read) == 64);    // every lane in bank 0
  CHECK(lds_bank_cycles(lanes(4, 0), read) == 4);       // one address: broadcast, one clock per group
  CHECK(lds_bank_cycles(lanes(8, 8), read) == 4);       // b64: 4 groups of 16 lanes
  CHECK(lds_bank_cycles(lanes(16, 16), read) == 8);     // b128: 8 groups of 8 lanes
  CHECK(lds_bank_cycles(lanes(16, 32), read) == 8);     // b128, stride 32 B: a group spans 256 B, banks once
  CHECK(lds_bank_cycles(lanes(16, 64), read) == 16);    // stride 64 B: a group spans 512 B, 2 per bank
  CHECK(lds_bank_cycles(lanes(16, 128), read) == 32);   // rows of 128 B: 4 lanes per bank group
  CHECK(lds_bank_cycles(lanes(12, 12), read) == 16);    // b96: 4 lanes a clock on 32 banks
  // Writes: b32 16 lanes a clock, b64 8, b128 4, all on 32 banks; at least 4 + 4 per dword clocks.
  CHECK(lds_bank_cycles(lanes(4, 4), write) == 8);      // 4 groups, but 8 address clocks
  CHECK(lds_bank_cycles(lanes(8, 8), write) == 12);     // 8 groups, 12 address clocks
  CHECK(lds_bank_cycles(lanes(16, 16), write) == 20);   // 16 groups, 20 address clocks
  CHECK(lds_bank_cycles(lanes(16, 128), write) == 64);  // rows of 128 B: a group's 4 lanes on banks 0-3
  CHECK(lds_bank_cycles(lanes(4, 128), write) == 64);   // every lane in bank 0: 16 clocks a group
  CHECK(lds_bank_cycles(lanes(4, 0), write) == 64);     // one address: a write is not broadcast, 16 clocks a group
  CHECK(lds_bank_cycles(lanes(16, 0), write) == 64);    // b128: 4 lanes, 4 clocks a group
  // read2_b64 (two 8-byte addresses per lane): 16 B per lane, 8-lane groups.
  std::vector<LaneAccess> same_bank;
  for (uint32_t l = 0; l < 64; ++l) {
    same_bank.push_back({l * 8, 8, l});
    same_bank.push_back({4096 + l * 8, 8, l});  // 4096 B = 1024 dwords: the same banks
  }
  CHECK(lds_bank_cycles(same_bank, read) == 16);
  std::vector<LaneAccess> read2;
  for (uint32_t l = 0; l < 64; ++l) {
    read2.push_back({l * 8, 8, l});
    read2.push_back({128 + l * 8, 8, l});  // banks 32..47 of the group: no conflict
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
