#include "codegen/attention_schedule/geometry.hpp"

#include "codegen/schedule/op_list.hpp"

namespace cdna4 {

bool has_kpack(AttentionOpKind kind) {
  return kind == AttentionOpKind::s2r || kind == AttentionOpKind::dot_qk || kind == AttentionOpKind::convert_p ||
         kind == AttentionOpKind::dot_pv;
}

int AttentionGeometry::kpacks(AttentionOpKind kind, KvOperand operand) const {
  if (kind == AttentionOpKind::dot_qk || (kind == AttentionOpKind::s2r && operand == KvOperand::k)) return qk_kpacks();
  if (has_kpack(kind)) return key_tiles();
  return 0;
}

KpackRange AttentionGeometry::kpack_range(const AttentionOp& op) const {
  if (!has_kpack(op.kind)) return {};
  if (op.kpack) return {*op.kpack, *op.kpack};
  return {0, kpacks(op.kind, op.operand) - 1};
}

int vm_instructions(const AttentionOp& op) { return op.kind == AttentionOpKind::g2s ? 1 : 0; }

int lgkm_instructions(const AttentionGeometry& g, const AttentionOp& op) {
  if (op.kind != AttentionOpKind::s2r) return 0;
  const KpackRange r = g.kpack_range(op);
  const int per_kpack = op.operand == KvOperand::k ? g.key_tiles() : g.d_tiles();
  return (r.last - r.first + 1) * per_kpack;
}

int depth(const AttentionSchedule& s) { return detail::pipeline_depth(s.ops, s.num_stages); }

}  // namespace cdna4
