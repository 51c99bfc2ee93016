#pragma once
// What GEMM and attention schedules share about their op list: emission order
// and the static rules on the fields every op has (wait ranges, unique orders,
// phases non-decreasing along order).
#include <cdna4/schedule.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "common/limits.hpp"

namespace cdna4::detail {

// Op indices in emission order (ascending `order`; ties keep array order).
template <typename Op>
std::vector<int> emission_order(const std::vector<Op>& ops) {
  std::vector<int> order(ops.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return ops[x].order < ops[y].order; });
  return order;
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
