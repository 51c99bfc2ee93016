#pragma once
// What GEMM and attention schedules share about their op list: emission order
// and the static rules on the fields every op has (wait ranges, unique orders,
// phases non-decreasing along order).
#include <cdna4/schedule.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "codegen/schedule/int_limit.hpp"
#include "common/limits.hpp"

namespace cdna4::detail {

// The fields every op has (stage, order, phase, the waits before it), and a
// setprio op's prio, as a schedule of either kind may give them.
struct OpTimingLimits {
  IntLimit stage = IntLimit::range(0, 15);
  IntLimit order = IntLimit::range(0, 65535);
  IntLimit phase = IntLimit::range(0, 255);
  IntLimit wait = IntLimit::range(0, 65535);  // vmcnt, lgkmcnt (the verifier's wait-range holds them to gfx950's)
  IntLimit prio = IntLimit::range(0, 3);      // s_setprio's range
};
inline const OpTimingLimits kOpTiming;

// The first of an op's timing fields outside kOpTiming; `path` names the op.
template <typename Op>
MaybeProblem op_timing_problem(const Op& op, const std::string& path) {
  if (MaybeProblem p = outside(kOpTiming.stage, op.stage, path + ".stage")) return p;
  if (MaybeProblem p = outside(kOpTiming.order, op.order, path + ".order")) return p;
  if (MaybeProblem p = outside(kOpTiming.phase, op.phase, path + ".phase")) return p;
  if (op.vmcnt)
    if (MaybeProblem p = outside(kOpTiming.wait, *op.vmcnt, path + ".vmcnt")) return p;
  if (op.lgkmcnt)
    if (MaybeProblem p = outside(kOpTiming.wait, *op.lgkmcnt, path + ".lgkmcnt")) return p;
  return std::nullopt;
}

// A wait op's counts: a bare s_waitcnt needs at least one.
template <typename Op>
MaybeProblem wait_counts_problem(const Op& op, const std::string& path) {
  if (op.vmcnt || op.lgkmcnt) return std::nullopt;
  return FieldProblem{path, "a wait op needs vmcnt, lgkmcnt or both"};
}

// Op indices in emission order (ascending `order`; ties keep array order).
template <typename Op>
std::vector<int> emission_order(const std::vector<Op>& ops) {
  std::vector<int> order(ops.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return ops[x].order < ops[y].order; });
  return order;
}

// Stages 0 .. depth - 1: max(stage) + 1, or num_stages (1 if absent) before planning.
template <typename Op>
int pipeline_depth(const std::vector<Op>& ops, std::optional<int> num_stages) {
  if (ops.empty()) return num_stages.value_or(1);
  int max_stage = 0;
  for (const Op& op : ops) max_stage = std::max(max_stage, op.stage);
  return max_stage + 1;
}

// Whether any op carries a vmcnt or lgkmcnt (the planners then keep the waits as given).
template <typename Op>
bool has_waits(const std::vector<Op>& ops) {
  return std::any_of(ops.begin(), ops.end(), [](const Op& op) { return op.vmcnt || op.lgkmcnt; });
}

// g2s-coverage: part p of each operand is loaded by exactly one op of kind
// `g2s` per `unit` (a tile, a KV block); `parts(o)` counts an operand's parts,
// `missing(o, p)` names a part no op loads, `d(i)` describes op i.
template <typename Op, typename Kind, typename Operand, typename Parts, typename Missing, typename Describe>
void check_g2s_coverage(const std::vector<Op>& ops, Kind g2s, std::initializer_list<Operand> operands, Parts&& parts,
                        Missing&& missing, Describe&& d, const char* unit, std::vector<Finding>& out) {
  for (Operand o : operands)
    for (int p = 0; p < parts(o); ++p) {
      std::vector<int> loaders;
      for (int i = 0; i < static_cast<int>(ops.size()); ++i)
        if (ops[i].kind == g2s && ops[i].operand == o && ops[i].part == p) loaders.push_back(i);
      if (loaders.empty())
        out.push_back(Finding{"g2s-coverage", -1, fmt::format("no G2S op loads part {}[{}] {}; every part must be loaded "
                                                              "once per {}", to_string(o), p, missing(o, p), unit)});
      for (size_t j = 1; j < loaders.size(); ++j)
        out.push_back(Finding{"g2s-coverage", loaders[j], fmt::format("{}: part {}[{}] is already loaded by {}; every part "
                                                                      "must be loaded exactly once per {}", d(loaders[j]),
                                                                      to_string(o), p, d(loaders[0]), unit)});
    }
}

// wait-range, unique-order, phase-order; `d(i)` describes op i.
template <typename Op, typename Describe>
void check_op_list(const std::vector<Op>& ops, Describe&& d, std::vector<Finding>& out) {
  auto add = [&](const char* rule, int op, std::string message) { out.push_back(Finding{rule, op, std::move(message)}); };
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    const Op& op = ops[i];
    if (op.vmcnt && *op.vmcnt > gfx950::kMaxVmcnt)
      add("wait-range", i, fmt::format("{}: vmcnt {} is out of range: s_waitcnt vmcnt takes 0..{} on gfx950", d(i), *op.vmcnt, gfx950::kMaxVmcnt));
    if (op.lgkmcnt && *op.lgkmcnt > gfx950::kMaxLgkmcnt)
      add("wait-range", i, fmt::format("{}: lgkmcnt {} is out of range: s_waitcnt lgkmcnt takes 0..{} on gfx950", d(i), *op.lgkmcnt, gfx950::kMaxLgkmcnt));
  }
  std::map<int, int> seen;
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    auto [it, fresh] = seen.emplace(ops[i].order, i);
    if (!fresh)
      add("unique-order", i, fmt::format("{}: order {} is already used by {}; orders must be unique", d(i), ops[i].order, d(it->second)));
  }
  const std::vector<int> body = emission_order(ops);
  for (size_t j = 1; j < body.size(); ++j)
    if (ops[body[j]].phase < ops[body[j - 1]].phase) {
      add("phase-order", body[j], fmt::format("{}: phase {} comes after {} in emission order; phases must not decrease along order",
                                              d(body[j]), ops[body[j]].phase, d(body[j - 1])));
      return;
    }
}

}  // namespace cdna4::detail
