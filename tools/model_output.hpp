#pragma once
// The lines and JSON the tools print for the model device; every number is
// labelled "modeled" (scripts read "modeled cycles:", "modeled time:" and
// "modeled: X TFLOP/s", docs/model.md).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "cdna4/model_report.hpp"

namespace cdna4::tools {

inline std::vector<std::pair<const char*, double>> stall_shares(const ModelStallShares& s) {
  return {{"issued", s.issued},   {"vmcnt", s.vmcnt},         {"lgkmcnt", s.lgkmcnt},
          {"barrier", s.barrier}, {"mfma_dependency", s.mfma_dependency}, {"mfma_busy", s.mfma_busy},
          {"issue", s.issue},     {"other", s.other}};
}

inline void print_model_lines(const ModelReport& m) {
  fmt::print("modeled cycles: {}\n", m.cycles);
  fmt::print("modeled time: {:.3f} us\n", m.seconds * 1e6);
  fmt::print("modeled occupancy: {} workgroups per CU, {} rounds of {} cycles; {}\n", m.workgroups_per_cu, m.rounds,
             m.cu_cycles, m.memory_bound ? "bound by HBM bandwidth" : "bound by the CU");
  fmt::print("modeled MFMA utilisation: {:.1f}%\n", 100 * m.mfma_utilization);
  std::string line = "modeled wave time:";
  for (auto [name, share] : stall_shares(m.stalls)) line += fmt::format(" {} {:.1f}%", name, 100 * share);
  fmt::print("{}\n", line);
}

inline nlohmann::json model_json(const ModelReport& m) {
  nlohmann::json stalls;
  for (auto [name, share] : stall_shares(m.stalls)) stalls[name] = share;
  return {{"cycles", m.cycles},
          {"seconds", m.seconds},
          {"clock_hz", m.clock_hz},
          {"mfma_utilization", m.mfma_utilization},
          {"cu_cycles", m.cu_cycles},
          {"rounds", m.rounds},
          {"workgroups_per_cu", m.workgroups_per_cu},
          {"waves_per_simd", m.waves_per_simd},
          {"compute_seconds", m.compute_seconds},
          {"memory_seconds", m.memory_seconds},
          {"memory_bytes", m.memory_bytes},
          {"memory_bound", m.memory_bound},
          {"wave_time", stalls}};
}

}  // namespace cdna4::tools
