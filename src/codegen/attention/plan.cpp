// plan(): the schedule's limits (codegen/attention_schedule/limits.hpp), the
// baseline ops for num_stages, the waits of explicit ops that carry none.
#include "cdna4/attention.hpp"
#include "codegen/attention/stream.hpp"
#include "codegen/attention_schedule/limits.hpp"
#include "codegen/schedule/op_list.hpp"

namespace cdna4 {
namespace codegen::attention {

namespace {

// num_stages 1: one block at a time. num_stages 2: block t + 1's loads in
// flight while block t computes (docs/codegen.md "Attention", the loop body).
std::vector<AttentionOp> baseline_ops(const AttentionSchedule& s) {
  const AttentionGeometry g = AttentionGeometry::of(s);
  const int compute = *s.num_stages - 1;
  std::vector<AttentionOp> ops;
  const auto add = [&](AttentionOpKind kind, int stage, int phase) {
    AttentionOp op;
    op.kind = kind;
    op.stage = stage;
    op.order = int(ops.size());
    op.phase = phase;
    ops.push_back(op);
    return &ops.back();
  };
  for (KvOperand operand : {KvOperand::k, KvOperand::v})
    for (int p = 0; p < g.parts(); ++p) {
      AttentionOp* op = add(AttentionOpKind::g2s, 0, 0);
      op->operand = operand;
      op->part = p;
    }
  add(AttentionOpKind::barrier, compute, 1);  // this block's K in LDS, from every wave
  add(AttentionOpKind::s2r, compute, 1)->operand = KvOperand::k;
  for (AttentionOpKind kind : {AttentionOpKind::dot_qk, AttentionOpKind::mask, AttentionOpKind::row_max,
                               AttentionOpKind::exp, AttentionOpKind::row_sum, AttentionOpKind::rescale_o,
                               AttentionOpKind::convert_p})
    add(kind, compute, 1);
  add(AttentionOpKind::barrier, compute, 2);  // this block's V in LDS
  add(AttentionOpKind::s2r, compute, 2)->operand = KvOperand::v;
  add(AttentionOpKind::dot_pv, compute, 2);
  add(AttentionOpKind::barrier, compute, 2);  // every wave done reading the slots the next loads refill
  return ops;
}

}  // namespace

}  // namespace codegen::attention

AttentionBlocks blocks(const AttentionSchedule& schedule) { return {schedule.block_q, schedule.block_k, 16}; }

AttentionSchedule plan(const AttentionSchedule& schedule) {
  // The limits the parser applies to a file, in its words (the schedule name where the file name stands).
  if (const detail::MaybeProblem p = detail::schedule_problem(schedule))
    throw ScheduleError(schedule.name, p->path, p->message);
  AttentionSchedule planned = schedule;
  if (schedule.num_stages) {
    planned.ops = codegen::attention::baseline_ops(schedule);
    planned.num_stages.reset();
  }
  if (!detail::has_waits(planned.ops)) codegen::attention::compute_waits(planned);
  return planned;
}

}  // namespace cdna4
