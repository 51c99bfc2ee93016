// verify(AttentionSchedule): static rules, then the simulation of every wave for
// every KV block count from 1 (prologue and epilogue overlap) up to enough
// steady-state iterations for every LDS slot to be reused twice.
#include <fmt/format.h>

#include "codegen/attention_schedule/limits.hpp"
#include "codegen/attention_schedule/verifier_internal.hpp"
#include "codegen/schedule/verify_counts.hpp"

namespace cdna4 {
namespace {

// The limits the parser applies (a schedule built in code may break them),
// or the simulation's tables would not hold the schedule.
bool within_limits(const AttentionSchedule& s, std::vector<Finding>& findings) {
  if (const detail::MaybeProblem p = detail::geometry_problem(s)) {
    findings.push_back(Finding{"op-range", -1, fmt::format("{}: {}", p->path, p->message)});
    return false;
  }
  for (int i = 0; i < static_cast<int>(s.ops.size()); ++i)
    if (const detail::MaybeProblem p = detail::op_problem(s, s.ops[i], fmt::format("ops[{}]", i)))
      findings.push_back(Finding{"op-range", i, fmt::format("{}: {}: {}", describe(s, i), p->path, p->message)});
  return findings.empty();
}

}  // namespace

VerifyReport verify(const AttentionSchedule& s, const VerifyOptions& options) {
  VerifyReport report;
  if (s.ops.empty()) {
    report.findings.push_back(Finding{"not-planned", -1, fmt::format(
        "schedule '{}' has num_stages and no ops; verify checks explicit ops (plan it first)", s.name)});
    return report;
  }
  if (!within_limits(s, report.findings)) return report;
  if (!options.hazards_only) detail::check_attention_rules(s, report.findings);
  if (report.findings.size() > options.max_findings) report.findings.resize(options.max_findings);
  detail::simulate_counts(options, 2 * depth(s) + s.lds_buffers + 2,
                          [&](int n, std::vector<Finding>& found) {
                            detail::simulate_attention(s, n, found, options.max_findings);
                          }, report);
  return report;
}

void verify_or_throw(const AttentionSchedule& s, const VerifyOptions& options) {
  const VerifyReport report = verify(s, options);
  if (!report.accepted()) throw Error(fmt::format("attention schedule '{}' rejected:\n{}", s.name, report.summary()));
}

}  // namespace cdna4
