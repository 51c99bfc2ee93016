#include "codegen/attention/geometry.hpp"

#include <algorithm>

namespace cdna4::codegen::attention {

int vm_instructions(const AttentionOp& op) { return op.kind == AttentionOpKind::g2s ? 1 : 0; }

int lgkm_instructions(const AttentionGeometry& g, const AttentionOp& op) {
  if (op.kind != AttentionOpKind::s2r) return 0;
  // K: one ds_read_b128 per 16-key tile and 32-d kpack; V: one ds_read_b64_tr_b16
  // per 16-d tile and 16-key kpack.
  if (op.operand == KvOperand::k) return g.key_tiles() * (op.kpack ? 1 : g.qk_kpacks());
  return g.d_tiles() * (op.kpack ? 1 : g.key_tiles());
}

int depth(const AttentionSchedule& s) {
  int stages = 0;
  for (const AttentionOp& op : s.ops) stages = std::max(stages, op.stage + 1);
  return stages;
}

}  // namespace cdna4::codegen::attention
