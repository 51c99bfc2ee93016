// verify(AttentionSchedule): static rules, then the simulation of every wave for
// every KV block count from 1 (prologue and epilogue overlap) up to enough
// steady-state iterations for every LDS slot to be reused twice.
#include <fmt/format.h>

#include "codegen/attention_schedule/geometry.hpp"
#include "codegen/attention_schedule/verifier_internal.hpp"
#include "codegen/schedule/verify_counts.hpp"

namespace cdna4 {
namespace {

// Parts and kpacks inside the geometry (the parser guarantees it for files; a
// schedule built in code may not), or the simulation's tables would not hold them.
bool in_range(const AttentionSchedule& s, std::vector<Finding>& findings) {
  bool ok = true;
  for (int i = 0; i < static_cast<int>(s.ops.size()); ++i) {
    const AttentionOp& op = s.ops[i];
    const int kpacks = AttentionGeometry::of(s).kpacks(op.kind, op.operand);
    std::string problem;
    if (op.kind == AttentionOpKind::g2s && (op.part < 0 || op.part >= AttentionGeometry::of(s).parts()))
      problem = fmt::format("part {} is outside 0..{}", op.part, AttentionGeometry::of(s).parts() - 1);
    else if (op.kpack && (*op.kpack < 0 || *op.kpack >= kpacks))
      problem = fmt::format("kpack {} is outside 0..{}", *op.kpack, kpacks - 1);
    else if (op.stage < 0)
      problem = fmt::format("stage {} is negative", op.stage);
    if (problem.empty()) continue;
    findings.push_back(Finding{"op-range", i, fmt::format("{}: {}", describe(s, i), problem)});
    ok = false;
  }
  return ok;
}

}  // namespace

VerifyReport verify(const AttentionSchedule& s, const VerifyOptions& options) {
  VerifyReport report;
  if (s.ops.empty()) {
    report.findings.push_back(Finding{"not-planned", -1, fmt::format(
        "schedule '{}' has num_stages and no ops; verify checks explicit ops (plan it first)", s.name)});
    return report;
  }
  if (AttentionGeometry::of(s).parts() == 0 || !in_range(s, report.findings)) {
    if (report.findings.empty())
      report.findings.push_back(Finding{"op-range", -1, fmt::format("the {} x {} bf16 K/V block does not split into G2S parts "
                                                                    "of waves * 1024 bytes", s.block_k, s.dim)});
    return report;
  }
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
