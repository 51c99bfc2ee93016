#pragma once
// How bench_foreign counts a launch's race and hazard reports (grouped by the
// emulator per (kind, rule, pc), each with its count).
#include <fmt/format.h>

#include <set>
#include <string>

#include "cdna4/runtime.hpp"

namespace foreign {

inline std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

constexpr size_t kMaxReports = 4096;  // (kind, rule, pc) groups per launch

// The emulator every row runs on, keeping up to kMaxReports report groups.
inline cdna4::Device reporting_emulator() {
  cdna4::EmulatorConfig config;
  config.max_races = kMaxReports;
  return cdna4::Device::emulator(config);
}

// The emulator modes every row runs in (docs/emulator.md): random issue order
// and completion delays; completion at issue; waves in turn with gfx950's latencies.
enum class Mode { randomized, instant, timed };
inline constexpr Mode kModes[] = {Mode::randomized, Mode::instant, Mode::timed};
inline const char* mode_name(Mode m) {
  return m == Mode::randomized ? "randomized" : m == Mode::instant ? "instant" : "timed";
}

// A launch that reports races instead of throwing, in the given mode.
inline cdna4::LaunchOptions reporting_launch(Mode mode) {
  cdna4::LaunchOptions opt;
  opt.on_race = cdna4::OnRace::Report;
  opt.instant_completion = mode == Mode::instant;
  opt.timed = mode == Mode::timed;
  return opt;
}

// One row per emulator mode: prints "name problem mode", then `row(launch)`
// prints the rest of the line; a throw prints " stops: why" in its place.
template <class Row>
void rows_per_mode(const std::string& name, const std::string& problem, int problem_width, Row&& row) {
  for (Mode mode : kModes) {
    fmt::print("{:<44} {:>{}} {:<10}", name, problem, problem_width, mode_name(mode));
    try {
      row(reporting_launch(mode));
    } catch (const std::exception& e) {
      fmt::print(" stops: {}\n", first_line(e.what()));
    }
  }
}

// A device buffer holding `host`'s elements.
template <class Host> cdna4::Buffer uploaded(cdna4::Device& dev, const Host& host) {
  cdna4::Buffer b = dev.alloc(host.size() * sizeof(host[0]));
  b.upload(host);
  return b;
}

// Reports of one launch: counts of races and of wait-state hazards (a "+"
// when groups beyond the emulator's cap were not kept), the distinct pcs, and
// the first of each.
struct Reports {
  size_t races = 0, hazards = 0;
  std::set<uint64_t> race_pcs, hazard_pcs;
  std::set<std::string> hazard_rules;  // "M0 written by SALU just before LDS-DMA", ...
  std::string first_race, first_hazard;
  bool capped = false;
  void add(const cdna4::LaunchStats& stats) {
    capped = capped || stats.dropped_races > 0;
    for (const cdna4::RaceReport& r : stats.races) {
      const std::string text = first_line(cdna4::describe(r));
      const size_t at = text.find(": hazard: ");
      const bool hazard = at != std::string::npos;
      if (hazard) hazard_rules.insert(text.substr(at + 10, text.find(" needs", at) - at - 10));
      (hazard ? hazards : races) += r.count;
      (hazard ? hazard_pcs : race_pcs).insert(r.pc);
      std::string& first = hazard ? first_hazard : first_race;
      if (first.empty()) first = text;
    }
  }
  std::string count(size_t n, const std::set<uint64_t>& pcs) const {
    return n == 0 ? "0" : fmt::format("{}{} @{} pc", n, capped ? "+" : "", pcs.size());
  }
  std::string races_column() const { return count(races, race_pcs); }
  std::string hazards_column() const { return count(hazards, hazard_pcs); }
  // The first race and hazard under a row, unless the row above showed the same.
  void print_firsts(std::string& shown) const {
    const std::string firsts = first_race + "\n" + first_hazard;
    if (firsts == shown) return;
    if (!first_race.empty()) fmt::print("    first race: {}\n", first_race);
    if (!first_hazard.empty()) {
      std::string rules;
      for (const std::string& r : hazard_rules) rules += (rules.empty() ? "" : "; ") + r;
      fmt::print("    hazard rules broken: {}\n    first hazard: {}\n", rules, first_hazard);
    }
    shown = firsts;
  }
};

}  // namespace foreign
