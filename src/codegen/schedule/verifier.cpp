// verify(): static rules, then the hazard simulation for every tile count from a
// single K tile (prologue and epilogue overlap, K below the pipeline depth) up to
// enough steady-state iterations for every LDS slot to be reused twice.
#include <fmt/format.h>

#include "schedule_internal.hpp"
#include "verify_counts.hpp"

namespace cdna4 {

std::string VerifyReport::summary() const {
  if (findings.empty()) {
    std::string ks;
    for (int k : k_tiles_checked) ks += (ks.empty() ? "" : ",") + std::to_string(k);
    return fmt::format("accepted (simulated K = {} tiles)", ks);
  }
  std::string out;
  for (const Finding& f : findings) out += fmt::format("[{}] {}\n", f.rule, f.message);
  return out;
}

VerifyReport verify(const Schedule& input, const VerifyOptions& options) {
  const Schedule s = input.ops.empty() ? plan(input) : input;
  VerifyReport report;
  if (!options.hazards_only) detail::check_static_rules(s, report.findings);
  if (report.findings.size() > options.max_findings) report.findings.resize(options.max_findings);
  detail::simulate_counts(options, 2 * depth(s) + s.lds_buffers + 2, [&](int k, std::vector<Finding>& found) {
    detail::simulate_hazards(s, k, found, options.max_findings);
  }, report);
  return report;
}

void verify_or_throw(const Schedule& s, const VerifyOptions& options) {
  const VerifyReport report = verify(s, options);
  if (!report.accepted())
    throw Error(fmt::format("schedule '{}' rejected:\n{}", s.name, report.summary()));
}

}  // namespace cdna4
