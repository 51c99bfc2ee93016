// Flattening a schedule into the per-wave instance stream, with the wait counts
// the hardware needs in every iteration (prologue and epilogue issue fewer loads).
#include <fmt/format.h>

#include <algorithm>

#include "op_list.hpp"
#include "schedule_internal.hpp"
#include "stream_expansion.hpp"

namespace cdna4 {
namespace detail {

std::vector<int> emission_order(const Schedule& s) { return emission_order(s.ops); }

}  // namespace detail

namespace {

using detail::counter_slots;

// vmcnt counts G2S ops, lgkmcnt counts ds_reads.
auto counted(const Schedule& s, bool vm) {
  return [&s, vm](const ScheduleOp& op) {
    return vm ? (op.kind == OpKind::g2s ? 1 : 0) : (op.kind == OpKind::s2r ? ds_reads(s, op) : 0);
  };
}

}  // namespace

Region region_of(const Schedule& s, int iteration, int k_tiles) { return detail::region_at(depth(s), iteration, k_tiles); }

std::string describe_iteration(const Schedule& s, int iteration, int k_tiles) {
  return detail::describe_iteration_at(depth(s), iteration, k_tiles);
}

int translation_invariant_from(const Schedule& s) {
  const std::vector<int> body = detail::emission_order(s);
  // A wait of N looks back N counted slots: ceil(N / slots per iteration) iterations.
  int look_back = 0;
  for (const bool vm : {true, false}) {
    const int per = counter_slots(s.ops, body, counted(s, vm)).per_iteration();
    if (per == 0) continue;
    for (const ScheduleOp& op : s.ops)
      if (const auto& n = vm ? op.vmcnt : op.lgkmcnt) look_back = std::max(look_back, (*n + per - 1) / per);
  }
  return depth(s) + look_back;
}

std::vector<OpInstance> expand(const Schedule& s, int k_tiles, int group) {
  if (k_tiles < 1) throw Error(fmt::format("expand: need at least one K tile, got {}", k_tiles));
  const std::vector<int> body = detail::emission_order(s);
  const int d = depth(s);
  const bool shifted = s.pingpong_groups == 2;
  const int shift_at = group == 1 ? d - 1 : std::max(k_tiles, d - 1);
  return detail::expand_ops(s.ops, body, k_tiles, d, counted(s, true), counted(s, false),
                            [&](int i, std::vector<OpInstance>& out) {
                              if (shifted && i == shift_at) out.push_back(OpInstance{-1, i, 0, std::nullopt, std::nullopt});
                            });
}

}  // namespace cdna4
