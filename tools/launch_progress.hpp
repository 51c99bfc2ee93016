#pragma once
// Long launches in the tools: a one-line progress bar on stderr (only when
// stderr is a terminal, and not with --quiet), and Ctrl-C as a clean stop: the
// first SIGINT cancels the launch between (or inside) workgroups; the tool then
// reports it and writes no output.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "cdna4/error.hpp"

#include "cdna4/runtime.hpp"

namespace cdna4::tools {

// 128 + SIGINT, as shells report a command stopped by Ctrl-C.
constexpr int kExitInterrupted = 130;

inline std::atomic<bool>& interrupt_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

// The first SIGINT asks the launch to stop; a second one ends the process at once.
extern "C" inline void on_sigint(int) {
  if (interrupt_flag().exchange(true)) std::_Exit(130);
}

// Call first thing in main: Ctrl-C during set-up then stops before the launch.
inline void install_interrupt_handler() { std::signal(SIGINT, on_sigint); }

class LaunchProgressBar {
 public:
  LaunchProgressBar(const char* tool, bool quiet) : tool_(tool), draw_(!quiet && isatty(STDERR_FILENO)) {}
  ~LaunchProgressBar() { finish(); }

  // Hooks the bar and the Ctrl-C flag into a launch.
  void attach(LaunchOptions& launch) {
    launch.cancel = &interrupt_flag();
    launch.on_progress = [this](const LaunchProgress& p) { update(p); };
  }

  static bool interrupted() { return interrupt_flag().load(); }

  // Clears the bar's line (before the tool prints its results).
  void finish() {
    if (drawn_) std::fprintf(stderr, "\r%*s\r", int(width_), "");
    drawn_ = false;
  }

  const LaunchProgress& last() const { return last_; }

  // Runs `launch` (which attached this bar) and clears the bar. When Ctrl-C
  // stopped it, says so on stderr ("nothing written") and returns nothing.
  template <class Launch>
  auto run(Launch launch) -> std::optional<decltype(launch())> {
    try {
      auto result = launch();
      finish();
      return result;
    } catch (const Error&) {
      finish();
      if (!interrupted()) throw;
      std::fprintf(stderr, "%s: interrupted (Ctrl-C) %s; nothing written\n", tool_,
                   last_.workgroups_total
                       ? fmt::format("after {} of {} workgroups", last_.workgroups_done, last_.workgroups_total).c_str()
                       : "before the launch started");
      return std::nullopt;
    }
  }

 private:
  void update(const LaunchProgress& p) {
    last_ = p;
    if (!draw_) return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && p.workgroups_done != p.workgroups_total && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    const int bar = 24, filled = p.workgroups_total ? int(bar * p.workgroups_done / p.workgroups_total) : bar;
    const std::string line = std::string(tool_) + ": [" + std::string(size_t(filled), '#') +
                             std::string(size_t(bar - filled), '.') + "] " + std::to_string(p.workgroups_done) + "/" +
                             std::to_string(p.workgroups_total) + " workgroups, " + fixed(p.elapsed_seconds) + " s, " +
                             fixed(p.elapsed_seconds > 0 ? double(p.workgroups_done) / p.elapsed_seconds : 0.0) +
                             " workgroups/s (Ctrl-C stops)";
    width_ = std::max(width_, line.size());
    std::fprintf(stderr, "\r%s", line.c_str());
    std::fflush(stderr);
    drawn_ = true;
  }

  static std::string fixed(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
  }

  const char* tool_;
  bool draw_, drawn_ = false;
  size_t width_ = 0;
  LaunchProgress last_;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace cdna4::tools
