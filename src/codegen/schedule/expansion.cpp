// Flattening a schedule into the per-wave instance stream, with the wait counts
// the hardware needs in every iteration (prologue and epilogue issue fewer loads).
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "schedule_internal.hpp"

namespace cdna4 {
namespace detail {

std::vector<int> emission_order(const Schedule& s) {
  std::vector<int> order(s.ops.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return s.ops[x].order < s.ops[y].order; });
  return order;
}

}  // namespace detail

namespace {

// The counter slots of one loop body: which op issues the q-th counted
// instruction of an iteration. vmcnt counts G2S ops, lgkmcnt counts ds_reads.
struct CounterSlots {
  std::vector<int> slot_op;     // op index of each slot inside one iteration
  std::vector<int> slots_before;  // per emission position: slots issued before it
  int per_iteration() const { return static_cast<int>(slot_op.size()); }
};

CounterSlots counter_slots(const Schedule& s, const std::vector<int>& body, bool vm) {
  CounterSlots c;
  for (int index : body) {
    c.slots_before.push_back(c.per_iteration());
    const ScheduleOp& op = s.ops[index];
    const int n = vm ? (op.kind == OpKind::g2s ? 1 : 0) : (op.kind == OpKind::s2r ? ds_reads(s, op) : 0);
    for (int j = 0; j < n; ++j) c.slot_op.push_back(index);
  }
  return c;
}

// A wait of N means: everything but the N most recent counted slots of the
// steady-state stream is complete. Slots whose op is absent in this iteration
// (its tile is out of range) are not issued, so the emitted count shrinks.
int effective_count(const Schedule& s, const CounterSlots& c, int iteration, int position, int n,
                    int k_tiles) {
  const int per = c.per_iteration();
  if (per == 0) return 0;
  const long long now = static_cast<long long>(iteration) * per + c.slots_before[position];
  int issued = 0;
  for (long long q = now - 1; q >= 0 && q >= now - n; --q) {
    const long long it = q / per;
    const int k = static_cast<int>(it) - s.ops[c.slot_op[q % per]].stage;
    if (k >= 0 && k < k_tiles) ++issued;
  }
  return issued;
}

}  // namespace

Region region_of(const Schedule& s, int iteration, int k_tiles) {
  if (iteration < depth(s) - 1) return Region::prologue;
  if (iteration < k_tiles) return Region::steady;
  return Region::epilogue;
}

std::string describe_iteration(const Schedule& s, int iteration, int k_tiles) {
  static const char* names[] = {"prologue", "steady-state", "epilogue"};
  return fmt::format("{} iteration i={}", names[static_cast<int>(region_of(s, iteration, k_tiles))], iteration);
}

int translation_invariant_from(const Schedule& s) {
  const std::vector<int> body = detail::emission_order(s);
  // A wait of N looks back N counted slots: ceil(N / slots per iteration) iterations.
  int look_back = 0;
  for (const bool vm : {true, false}) {
    const int per = counter_slots(s, body, vm).per_iteration();
    if (per == 0) continue;
    for (const ScheduleOp& op : s.ops)
      if (const auto& n = vm ? op.vmcnt : op.lgkmcnt) look_back = std::max(look_back, (*n + per - 1) / per);
  }
  return depth(s) + look_back;
}

std::vector<OpInstance> expand(const Schedule& s, int k_tiles, int group) {
  if (k_tiles < 1) throw Error(fmt::format("expand: need at least one K tile, got {}", k_tiles));
  const std::vector<int> body = detail::emission_order(s);
  const CounterSlots vm = counter_slots(s, body, true);
  const CounterSlots lgkm = counter_slots(s, body, false);
  const int d = depth(s);
  const int last_iteration = k_tiles + d - 2;
  const bool shifted = s.pingpong_groups == 2;
  const int shift_at = group == 1 ? d - 1 : std::max(k_tiles, d - 1);

  std::vector<OpInstance> out;
  for (int i = 0; i <= last_iteration + 1; ++i) {
    if (shifted && i == shift_at) out.push_back(OpInstance{-1, i, 0, std::nullopt, std::nullopt});
    if (i > last_iteration) break;
    for (size_t p = 0; p < body.size(); ++p) {
      const ScheduleOp& op = s.ops[body[p]];
      const int k = i - op.stage;
      if (k < 0 || k >= k_tiles) continue;
      OpInstance inst{body[p], i, k, std::nullopt, std::nullopt};
      if (op.vmcnt) inst.vmcnt = effective_count(s, vm, i, static_cast<int>(p), *op.vmcnt, k_tiles);
      if (op.lgkmcnt) inst.lgkmcnt = effective_count(s, lgkm, i, static_cast<int>(p), *op.lgkmcnt, k_tiles);
      out.push_back(inst);
    }
  }
  return out;
}

}  // namespace cdna4
