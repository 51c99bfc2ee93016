// plan(): the baseline ops for num_stages, the waits of explicit ops that carry
// none, and the structural checks of an attention schedule.
#include "codegen/attention/plan.hpp"

#include <set>

#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "codegen/attention_schedule/geometry.hpp"
#include "codegen/attention/stream.hpp"
#include "common/limits.hpp"

namespace cdna4 {
namespace codegen::attention {

namespace {

void fail(const AttentionSchedule& s, const std::string& path, const std::string& why) {
  throw ScheduleError(s.name, path, why);
}

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

bool has_waits(const AttentionSchedule& s) {
  for (const AttentionOp& op : s.ops)
    if (op.vmcnt || op.lgkmcnt) return true;
  return false;
}

}  // namespace

void check_attention_schedule(const AttentionSchedule& s) {
  if (s.target != "gfx950") fail(s, "target", fmt::format("the target is gfx950, not \"{}\"", s.target));
  if (s.dim != 64 && s.dim != 128) fail(s, "dim", fmt::format("dim must be 64 or 128, got {}", s.dim));
  if (s.waves != 4 && s.waves != 8) fail(s, "waves", fmt::format("waves must be 4 or 8, got {}", s.waves));
  if (s.block_q != 16 * s.waves)
    fail(s, "block_q", fmt::format("block_q must be 16 * waves = {} (each wave owns 16 query rows), got {}",
                                   16 * s.waves, s.block_q));
  if (s.block_k != 32 && s.block_k != 64 && s.block_k != 128)
    fail(s, "block_k", fmt::format("block_k must be 32, 64 or 128, got {}", s.block_k));
  if (s.lds_buffers < 1 || s.lds_buffers > 4)
    fail(s, "lds_buffers", fmt::format("lds_buffers must be 1 to 4, got {}", s.lds_buffers));
  const AttentionGeometry g = AttentionGeometry::of(s);
  if (g.block_bytes() % g.part_bytes() != 0)
    fail(s, "block_k", fmt::format("a {}-key block of D = {} is {} bytes, not a whole number of G2S parts of {} bytes "
                                   "(1 KiB per wave)", s.block_k, s.dim, g.block_bytes(), g.part_bytes()));
  if (g.lds_bytes() > gfx950::kLdsBytesPerCu)
    fail(s, "lds_buffers", fmt::format("{} K and {} V slots of {} bytes need {} bytes of LDS; a workgroup has {}",
                                       s.lds_buffers, s.lds_buffers, g.block_bytes(), g.lds_bytes(),
                                       gfx950::kLdsBytesPerCu));
  if (s.num_stages && (*s.num_stages < 1 || *s.num_stages > 2))
    fail(s, "num_stages", fmt::format("the planner writes num_stages 1 or 2, got {}", *s.num_stages));
  if (!s.num_stages && s.ops.empty()) fail(s, "ops", "a schedule needs num_stages or ops");
  std::set<int> orders;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const AttentionOp& op = s.ops[i];
    const std::string at = fmt::format("ops[{}]", i);
    if (op.stage < 0 || op.stage > 7) fail(s, at + ".stage", fmt::format("stage must be 0 to 7, got {}", op.stage));
    if (!orders.insert(op.order).second) fail(s, at + ".order", fmt::format("order {} is used twice", op.order));
    if (op.kind == AttentionOpKind::g2s && (op.part < 0 || op.part >= g.parts()))
      fail(s, at + ".part", fmt::format("part must be 0 to {} ({} parts a block), got {}", g.parts() - 1, g.parts(),
                                        op.part));
    if (op.kpack) {
      int kpacks = 0;
      if (op.kind == AttentionOpKind::dot_qk || (op.kind == AttentionOpKind::s2r && op.operand == KvOperand::k))
        kpacks = g.qk_kpacks();
      else if (op.kind == AttentionOpKind::dot_pv || op.kind == AttentionOpKind::convert_p ||
               (op.kind == AttentionOpKind::s2r && op.operand == KvOperand::v))
        kpacks = g.key_tiles();
      if (!kpacks) fail(s, at + ".kpack", "only s2r, dot_qk, convert_p and dot_pv take a kpack");
      if (*op.kpack < 0 || *op.kpack >= kpacks)
        fail(s, at + ".kpack", fmt::format("kpack must be 0 to {}, got {}", kpacks - 1, *op.kpack));
    }
    if (op.kind == AttentionOpKind::setprio && (op.prio < 0 || op.prio > 3))
      fail(s, at + ".prio", fmt::format("prio must be 0 to 3, got {}", op.prio));
  }
}

}  // namespace codegen::attention

AttentionBlocks blocks(const AttentionSchedule& schedule) { return {schedule.block_q, schedule.block_k, 16}; }

AttentionSchedule plan(const AttentionSchedule& schedule) {
  codegen::attention::check_attention_schedule(schedule);
  AttentionSchedule planned = schedule;
  if (schedule.num_stages) {
    planned.ops = codegen::attention::baseline_ops(schedule);
    planned.num_stages.reset();
  }
  if (!codegen::attention::has_waits(planned)) codegen::attention::compute_waits(planned);
  return planned;
}

}  // namespace cdna4
