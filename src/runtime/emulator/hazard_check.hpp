#pragma once
// Wait-state hazards: the hardware does not interlock some dependencies (an MFMA
// result read too early, M0 written just before an LDS-DMA load, ...); code must
// put s_nops between them. The emulator executes such code "correctly", so it
// reports every missing wait state instead of passing by luck. The rules are
// gfx950's (common/wait_state_rules.hpp, shared with the code generator's hazard pass).
#include <cstdint>
#include <vector>

#include "runtime/emulator/program.hpp"

namespace cdna4::emu {

// The profile of every instruction of a decoded program (Program::hazard).
std::vector<gfx950::HazardProfile> hazard_profiles(const Program& program);
// The rules each instruction's profile (program.hazard) can start and end, and its wait states (Program::hazard_rows).
std::vector<HazardRows> hazard_rows(const Program& program);

// Per wave: the instructions that may still start a hazard.
struct HazardHistory {
  struct Producer {
    uint32_t inst;
    uint64_t issued;  // wait states issued up to and including the producer
    int lifetime;     // the longest wait a rule can ask after it
    uint32_t starts;  // the rules it can start (HazardRows::starts)
  };
  uint64_t states = 0;
  uint64_t next_expiry = ~0ull;  // the earliest issued + lifetime among the producers
  uint32_t live_starts = 0;      // every rule the producers can start (a consumer ending none has nothing to check)
  std::vector<Producer> producers;
  void reset() {
    states = 0;
    next_expiry = ~0ull;
    live_starts = 0;
    producers.clear();
  }
};

// What a producer instruction asks of a consumer (the rows they share and
// where their operands meet) depends on the two instructions only: remembered
// per (producer, consumer) pair in a direct-mapped table, per worker thread.
// A consumer's entries lie together (kWays of them, by producer), so the
// producers one consumer checks touch a few neighbouring cache lines.
struct HazardMemo {
  struct Entry {
    uint64_t pair = ~0ull;  // producer << 32 | consumer
    int16_t states = 0;     // 0: no wait asked
    uint8_t rule = 0;
    bool vector = true;
    uint16_t first = 0, count = 0;  // registers: below 2^16
  };
  static constexpr size_t kWays = 16, kEntries = 1024 * kWays;
  static size_t slot(uint32_t producer, uint32_t consumer) {
    return (consumer % (kEntries / kWays)) * kWays + producer % kWays;
  }
  const void* program = nullptr;  // the entries' program
  std::vector<Entry> entries;
};

struct Wave;
// Before `in` issues: reports every rule whose wait states have not passed
// Called only when a live producer starts a rule `in` ends (HazardHistory::live_starts):
// most instructions have nothing to check.
void check_hazards_of_producers(Wave& wave, const Inst& in);
// After instruction `inst` (its rows) issued: counts its wait states and remembers it
// as a producer. Most instructions start no rule and let no producer expire.
void note_producers(HazardHistory& h, const HazardRows& rows, uint32_t inst);
inline void note_issued(HazardHistory& h, const HazardRows& rows, uint32_t inst) {
  h.states += rows.wait_states;
  if (rows.lifetime || h.states >= h.next_expiry) note_producers(h, rows, inst);
}

}  // namespace cdna4::emu
