#pragma once
// The simulation half of verify(), shared by GEMM and attention schedules: one
// simulation per tile count (options.k_tiles, or `deepest` down to 1), findings
// merged so a (rule, op) pair is reported once, at most options.max_findings.
#include <cdna4/schedule.hpp>

#include <utility>
#include <vector>

namespace cdna4::detail {

template <typename Simulate>
void simulate_counts(const VerifyOptions& options, int deepest, Simulate&& simulate, VerifyReport& report) {
  std::vector<int> counts = options.k_tiles;
  if (counts.empty())
    for (int k = deepest; k >= 1; --k) counts.push_back(k);
  for (int k : counts) {
    if (report.findings.size() >= options.max_findings) break;
    std::vector<Finding> found;
    simulate(k, found);
    for (Finding& f : found) {
      bool known = false;
      for (const Finding& g : report.findings) known |= g.rule == f.rule && g.op == f.op;
      if (!known && report.findings.size() < options.max_findings) report.findings.push_back(std::move(f));
    }
    report.k_tiles_checked.push_back(k);
  }
}

}  // namespace cdna4::detail
