#pragma once
// State of one wave64 and of the workgroup it belongs to.
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cdna4/code_object.hpp"
#include "common/limits.hpp"
#include "runtime/emulator/async_queue.hpp"
#include "runtime/emulator/hazard_check.hpp"
#include "runtime/emulator/emulator.hpp"
#include "runtime/emulator/global_memory.hpp"
#include "runtime/emulator/lds_race_tracker.hpp"
#include "runtime/emulator/program.hpp"
#include "runtime/emulator/race_groups.hpp"
#include "runtime/emulator/trace.hpp"
#include "common/limits.hpp"

namespace cdna4::emu {

constexpr int kLanes = gfx950::kWaveSize;
constexpr int kRegisterFile = gfx950::kRegistersPerLane;

enum class WaveStatus : uint8_t { Ready, Waiting, AtBarrier, Done };

struct Workgroup;

struct Wave {
  Workgroup* wg = nullptr;
  uint32_t id = 0;                 // wave index inside the workgroup
  uint32_t pc = 0;                 // instruction index
  uint32_t next_pc = 0;            // set by handlers that branch or stay
  bool scc = false;
  WaveStatus status = WaveStatus::Ready;
  uint64_t ready_at = 0;           // Waiting: simulated time at which to retry
  uint64_t clock = 0;              // timed mode: when this wave can issue next
  uint32_t priority = 0;           // s_setprio
  uint32_t barrier_epoch = 0;      // barriers passed
  uint32_t sgpr[sreg::kFileSize] = {};
  std::vector<uint32_t> vgpr_storage;  // [register][lane]
  AsyncState async;
  HazardHistory hazards;

  uint32_t* v(uint32_t reg) { return vgpr_storage.data() + reg * kLanes; }
  const uint32_t* v(uint32_t reg) const { return vgpr_storage.data() + reg * kLanes; }
  uint64_t s64(uint32_t reg) const { return sgpr[reg] | (uint64_t(sgpr[reg + 1]) << 32); }
  void set_s64(uint32_t reg, uint64_t value) {
    sgpr[reg] = static_cast<uint32_t>(value);
    sgpr[reg + 1] = static_cast<uint32_t>(value >> 32);
  }
  uint64_t exec() const { return s64(sreg::kExecLo); }
  uint64_t vcc() const { return s64(sreg::kVccLo); }
};

struct Workgroup {
  const Program* program = nullptr;
  const KernelInfo* kernel = nullptr;
  const GlobalMemory* memory = nullptr;
  EmulatorOptions options;
  bool track_races = true;         // false with instant completion
  bool timed = false;              // waves in clock order (EmulatorOptions::timed, timed_issue.hpp)
  uint32_t next_in_turn = 0;       // timed: first wave to try among equal clocks
  uint64_t mfma_free_at[gfx950::kSimdsPerCu] = {};  // timed: when each SIMD's MFMA pipe takes the next one
  uint32_t id[3] = {0, 0, 0};
  uint64_t linear_id = 0;
  std::vector<uint8_t> lds;
  std::vector<uint8_t> private_memory;  // per lane of every wave: private_lane_bytes (private_memory.hpp)
  uint32_t private_lane_bytes = 0;
  std::vector<Wave> waves;
  uint32_t live_waves = 0;
  uint64_t now = 0;                // simulated issue slots
  std::mt19937_64 rng;
  LdsRaceTracker lds_tracker;
  HazardMemo hazard_memo;
  std::vector<const AsyncState*> async_states;  // per wave, for the LDS race tracker
  RaceGroups races;
  uint64_t instructions = 0;
  uint64_t mfma_macs = 0;
  std::unique_ptr<TraceRecorder> tracer;  // set while a traced workgroup runs

  // rng() % n. A power of two is a mask; the other small n a wave pick asks for
  // (the ready waves' weights) divide by a constant, which compiles to a multiplication.
  uint32_t random_below(uint32_t n) {
    if (n <= 1) return 0;
    const uint64_t x = rng();
    if ((n & (n - 1)) == 0) return static_cast<uint32_t>(x & (n - 1));
    return below(x, n, std::integer_sequence<uint32_t, 3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15>{});
  }
  template <uint32_t... kSmall>
  static uint32_t below(uint64_t x, uint32_t n, std::integer_sequence<uint32_t, kSmall...>) {
    uint32_t r = 0;
    const bool small = ((n == kSmall && (r = static_cast<uint32_t>(x % kSmall), true)) || ...);
    return small ? r : static_cast<uint32_t>(x % n);
  }
  // Completes `r` with this instruction, wave and workgroup and with the other
  // instruction (an index into the program), derives its text and keeps it as
  // a new group, or counts it in its (kind, rule, pc) group.
  void report_race(const Wave& wave, const Inst& in, uint32_t other_inst, RaceReport r);
  [[noreturn]] void fail(const Wave& wave, const Inst& in, const std::string& what) const;
};

}  // namespace cdna4::emu
