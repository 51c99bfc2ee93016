// Planner. Inferred mode (num_stages only) follows TileLang's PipelinePlanning:
// G2S in stage 0, S2R + MFMA in the last stage, lds_buffers = num_stages, one
// s_barrier publishing the tile before it is read and one after the last read
// so the next G2S may refill the slot. Waits are then computed: every candidate
// wait starts at 0 (the strongest) and is relaxed, one at a time, to the weakest
// value (or none) for which the hazard simulation still proves the schedule safe.
#include <fmt/format.h>

#include "schedule_internal.hpp"
#include "codegen/schedule/op_list.hpp"
#include "common/limits.hpp"

namespace cdna4 {
namespace {

std::vector<ScheduleOp> inferred_ops(const Schedule& s, int num_stages) {
  const int last = num_stages - 1;
  std::vector<ScheduleOp> ops;
  int order = 0;
  auto add = [&](OpKind kind, int stage, int phase) -> ScheduleOp& {
    ScheduleOp op;
    op.kind = kind;
    op.stage = stage;
    op.order = order++;
    op.phase = phase;
    ops.push_back(op);
    return ops.back();
  };
  for (Operand o : {Operand::a, Operand::b})
    for (int p = 0; p < g2s_parts(s, o); ++p) {
      ScheduleOp& g = add(OpKind::g2s, 0, 0);
      g.operand = o;
      g.part = p;
    }
  add(OpKind::barrier, last, 0);
  for (int c = 0; c < kpacks(s); ++c) {
    for (Operand o : {Operand::a, Operand::b}) {
      ScheduleOp& r = add(OpKind::s2r, last, c);
      r.operand = o;
      r.kpack = c;
    }
    add(OpKind::mfma, last, c).kpack = c;
  }
  add(OpKind::barrier, last, kpacks(s) - 1);
  return ops;
}

bool safe(const Schedule& s) {
  VerifyOptions options;
  options.hazards_only = true;
  options.max_findings = 1;
  return verify(s, options).accepted();
}

using Counter = std::optional<int> ScheduleOp::*;

// Relax one wait to the weakest value the simulation still proves safe.
void relax(Schedule& s, int op, Counter counter, int max_value) {
  std::optional<int>& wait = s.ops[op].*counter;
  wait = std::nullopt;
  if (safe(s)) return;
  int lo = 0, hi = max_value;  // safe at lo; find the largest safe value
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    wait = mid;
    if (safe(s)) lo = mid;
    else hi = mid - 1;
  }
  wait = lo;
}

void compute_waits(Schedule& s) {
  const std::vector<int> body = detail::emission_order(s);
  std::vector<std::pair<int, Counter>> candidates;
  for (int i : body)
    if (s.ops[i].kind == OpKind::barrier) candidates.emplace_back(i, &ScheduleOp::vmcnt);
  for (int i : body)
    if (s.ops[i].kind == OpKind::mfma) candidates.emplace_back(i, &ScheduleOp::lgkmcnt);
  for (int i : body)
    if (s.ops[i].kind == OpKind::barrier) candidates.emplace_back(i, &ScheduleOp::lgkmcnt);
  for (auto [op, counter] : candidates) s.ops[op].*counter = 0;
  if (!safe(s)) return;  // not repairable by waits alone: verify() explains why
  for (auto [op, counter] : candidates)
    relax(s, op, counter, counter == &ScheduleOp::vmcnt ? gfx950::kMaxVmcnt : gfx950::kMaxLgkmcnt);
}

}  // namespace

Schedule plan(const Schedule& input) {
  Schedule s = input;
  if (s.num_stages) {
    s.ops = inferred_ops(s, *s.num_stages);
    s.num_stages.reset();
  } else if (detail::has_waits(s.ops)) {
    return s;
  }
  compute_waits(s);
  return s;
}

}  // namespace cdna4
