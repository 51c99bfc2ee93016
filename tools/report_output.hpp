#pragma once
// How the tools print race reports and unsupported instructions: one
// key=value line each (quoted disassembly last, for grep and cut), or JSON.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <string>

#include "cdna4/gemm.hpp"
#include "cdna4/runtime.hpp"

namespace cdna4::tools {

// race kind=K pc=0x.. count=C wg=X,Y,Z wave=W other_pc=0x.. other_wave=W at=LOC missing=M
//   [rule=R needed=N passed=P] inst='...' other_inst='...'
// (one line per (kind, rule, pc) group: C occurrences, the first one's facts)
inline std::string race_line(const RaceReport& r) {
  std::string hazard = r.kind == RaceKind::Hazard ? fmt::format(" rule={} needed={} passed={}", to_string(r.rule),
                                                                r.wait_states_needed, r.wait_states_passed)
                                                  : "";
  return fmt::format("race kind={} pc=0x{:x} count={} wg={},{},{} wave={} other_pc=0x{:x} other_wave={} at={} "
                     "missing={}{} inst='{}' other_inst='{}'",
                     to_string(r.kind), r.pc, r.count, r.workgroup[0], r.workgroup[1], r.workgroup[2], r.wave,
                     r.other_pc, r.other_wave, to_string(r.location), to_string(r.missing), hazard, r.instruction,
                     r.other_instruction);
}

inline const char* space_name(RaceLocation::Space space) {
  switch (space) {
    case RaceLocation::Space::Lds: return "lds";
    case RaceLocation::Space::Vgpr: return "vgpr";
    case RaceLocation::Space::Agpr: return "agpr";
    case RaceLocation::Space::Sgpr: return "sgpr";
    default: return "none";
  }
}

inline nlohmann::json race_json(const RaceReport& r) {
  nlohmann::json j = {
      {"kind", to_string(r.kind)},
      {"pc", r.pc},
      {"count", r.count},
      {"instruction", r.instruction},
      {"workgroup", {r.workgroup[0], r.workgroup[1], r.workgroup[2]}},
      {"wave", r.wave},
      {"other_pc", r.other_pc},
      {"other_instruction", r.other_instruction},
      {"other_wave", r.other_wave},
      {"location", {{"space", space_name(r.location.space)}, {"first", r.location.first}, {"count", r.location.count}}},
      {"missing", to_string(r.missing)},
      {"what", r.what},
  };
  if (r.kind == RaceKind::Hazard) {
    j["rule"] = to_string(r.rule);
    j["wait_states_needed"] = r.wait_states_needed;
    j["wait_states_passed"] = r.wait_states_passed;
  }
  return j;
}

// Every report as a line, then, when groups were not kept, how many occurrences those had.
inline void print_race_lines(const LaunchStats& stats, size_t max_races) {
  for (const RaceReport& race : stats.races) fmt::print("{}\n", race_line(race));
  if (stats.dropped_races)
    fmt::print("races not kept: {} occurrence{} in groups beyond the first {}\n", stats.dropped_races,
               stats.dropped_races == 1 ? "" : "s", max_races);
}

// The "races" array and "dropped_races" of the tools' JSON output.
inline void add_races_json(nlohmann::json& out, const LaunchStats& stats) {
  nlohmann::json races = nlohmann::json::array();
  for (const RaceReport& race : stats.races) races.push_back(race_json(race));
  out["races"] = races;
  out["dropped_races"] = stats.dropped_races;
}

// What one compiled launch cost, and its races (cdna4-gemm's and cdna4-attn's --json).
inline nlohmann::json run_json(const CompileStats& compile, const LaunchStats& launch, double wall_seconds) {
  nlohmann::json j = {
      {"compile_ms", compile.total_ms},     {"compile_cached", compile.cached}, {"seconds", launch.seconds},
      {"instructions", launch.instructions}, {"mfma_macs", launch.mfma_macs},  {"wall_seconds", wall_seconds},
  };
  add_races_json(j, launch);
  return j;
}

// unsupported kernel=K count=N first_pc=0x.. opcode=NAME inst='...' reason='...'
inline std::string unsupported_line(const std::string& kernel, const UnsupportedInstruction& u) {
  return fmt::format("unsupported kernel={} count={} first_pc=0x{:x} opcode={} inst='{}' reason='{}'", kernel, u.count,
                     u.first_pc, u.opcode, u.disassembly, u.reason);
}

inline nlohmann::json unsupported_json(const UnsupportedInstruction& u) {
  return {{"opcode", u.opcode},
          {"disassembly", u.disassembly},
          {"reason", u.reason},
          {"count", u.count},
          {"first_pc", u.first_pc}};
}

}  // namespace cdna4::tools
