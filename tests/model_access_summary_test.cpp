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

TEST_CASE("model: LDS bank cycles by phase, bank and broadcast", "[model]") {
  CHECK(lds_bank_cycles(lanes(4, 4)) == 2);       // b32: two phases of 32 lanes
  CHECK(lds_bank_cycles(lanes(4, 8)) == 2);       // stride 2 dwords: a phase spans the 64 banks once
  CHECK(lds_bank_cycles(lanes(4, 16)) == 4);      // stride 4 dwords: 16 banks, each used twice per phase
  CHECK(lds_bank_cycles(lanes(4, 256)) == 64);    // every lane in bank 0
  CHECK(lds_bank_cycles(lanes(4, 0)) == 2);       // one address: broadcast, one clock per phase
  CHECK(lds_bank_cycles(lanes(8, 8)) == 4);       // b64: 4 phases of 16 lanes
  CHECK(lds_bank_cycles(lanes(16, 16)) == 8);     // b128: 8 phases of 8 lanes
  CHECK(lds_bank_cycles(lanes(16, 32)) == 8);     // b128, stride 32 B: a phase spans 256 B, banks once
  CHECK(lds_bank_cycles(lanes(16, 64)) == 16);    // stride 64 B: a phase spans 512 B, 2 per bank
  CHECK(lds_bank_cycles(lanes(16, 128)) == 32);   // rows of 128 B: 4 lanes per bank group
  // read2_b64 (two 8-byte addresses per lane): 16 B per lane, 8-lane phases.
  std::vector<LaneAccess> same_bank;
  for (uint32_t l = 0; l < 64; ++l) {
    same_bank.push_back({l * 8, 8, l});
    same_bank.push_back({4096 + l * 8, 8, l});  // 4096 B = 1024 dwords: the same banks
  }
  CHECK(lds_bank_cycles(same_bank) == 16);
  std::vector<LaneAccess> read2;
  for (uint32_t l = 0; l < 64; ++l) {
    read2.push_back({l * 8, 8, l});
    read2.push_back({128 + l * 8, 8, l});  // banks 32..47 of the phase: no conflict
  }
  CHECK(lds_bank_cycles(read2) == 8);
  // Inactive lanes leave their phase empty.
  const auto all = lanes(16, 16);
  const std::vector<LaneAccess> half(all.begin(), all.begin() + 32);
  CHECK(lds_bank_cycles(half) == 4);
}

TEST_CASE("model: distinct 128-byte lines of a vector memory access", "[model]") {
  CHECK(distinct_cache_lines(lanes(16, 16)) == 8);        // coalesced dwordx4
  CHECK(distinct_cache_lines(lanes(16, 16, 64)) == 9);    // the same, off a line boundary
  CHECK(distinct_cache_lines(lanes(16, 32)) == 16);       // one 32-byte segment per lane
  CHECK(distinct_cache_lines(lanes(4, 128)) == 64);       // one line per lane
  CHECK(distinct_cache_lines(lanes(4, 0)) == 1);          // all lanes on one dword
  CHECK(distinct_cache_lines({}) == 0);
}
