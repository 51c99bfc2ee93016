#pragma once
// The bounds of one emulator run, shared by its worker threads: a budget of
// wave-instructions, a wall-clock deadline and a cancel flag.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "runtime/emulator/emulator.hpp"

namespace cdna4::emu {

class RunLimits {
 public:
  using Clock = std::chrono::steady_clock;
  // Workers charge instructions in batches of this many.
  static constexpr uint32_t kBatch = 4096;

  // A time limit that is not a finite number of seconds up to 1e9 means none
  // (a larger one would overflow the clock).
  RunLimits(const EmulatorOptions& o, Clock::time_point start)
      : max_instructions_(o.max_instructions),
        time_limit_(o.time_limit_seconds > 0 && o.time_limit_seconds <= 1e9 ? o.time_limit_seconds : 0),
        cancel_(o.cancel),
        deadline_(start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(time_limit_))) {}

  // Adds `n` executed wave-instructions; says which limit is hit, if any.
  std::optional<std::string> charge(uint64_t n) {
    uint64_t used = used_.fetch_add(n) + n;
    if (max_instructions_ && used > max_instructions_)
      return fmt::format("instruction budget of {} wave-instructions exhausted", max_instructions_);
    return check();
  }

  std::optional<std::string> check() const {
    if (cancel_ && cancel_->load(std::memory_order_relaxed)) return std::string("launch cancelled");
    if (time_limit_ > 0 && Clock::now() > deadline_) return fmt::format("time limit of {} s exceeded", time_limit_);
    return std::nullopt;
  }

 private:
  uint64_t max_instructions_;
  double time_limit_;
  const std::atomic<bool>* cancel_;
  Clock::time_point deadline_;
  std::atomic<uint64_t> used_{0};
};

}  // namespace cdna4::emu
