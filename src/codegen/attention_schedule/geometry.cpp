#include "codegen/attention_schedule/geometry.hpp"

#include <algorithm>

namespace cdna4::detail {

int attention_depth(const AttentionSchedule& s) {
  if (s.ops.empty()) return s.num_stages.value_or(1);
  int max_stage = 0;
  for (const AttentionOp& op : s.ops) max_stage = std::max(max_stage, op.stage);
  return max_stage + 1;
}

int attention_block_bytes(const AttentionSchedule& s) { return s.block_k * s.dim * 2; }
int attention_part_bytes(const AttentionSchedule& s) { return s.waves * 1024; }

int attention_g2s_parts(const AttentionSchedule& s) {
  const int block = attention_block_bytes(s), part = attention_part_bytes(s);
  return block % part == 0 ? block / part : 0;
}

int attention_lds_bytes(const AttentionSchedule& s) { return s.lds_buffers * 2 * attention_block_bytes(s); }

int qk_kpacks(const AttentionSchedule& s) { return s.dim / 32; }
int pv_kpacks(const AttentionSchedule& s) { return s.block_k / 16; }

bool has_kpack(AttentionOpKind kind) {
  return kind == AttentionOpKind::s2r || kind == AttentionOpKind::dot_qk || kind == AttentionOpKind::convert_p ||
         kind == AttentionOpKind::dot_pv;
}

int kpacks_of(const AttentionSchedule& s, AttentionOpKind kind, KvOperand operand) {
  if (kind == AttentionOpKind::dot_qk || (kind == AttentionOpKind::s2r && operand == KvOperand::k)) return qk_kpacks(s);
  if (has_kpack(kind)) return pv_kpacks(s);
  return 0;
}

KpackRange kpack_range(const AttentionSchedule& s, const AttentionOp& op) {
  if (!has_kpack(op.kind)) return {};
  if (op.kpack) return {*op.kpack, *op.kpack};
  return {0, kpacks_of(s, op.kind, op.operand) - 1};
}

int attention_ds_reads(const AttentionSchedule& s, const AttentionOp& s2r) {
  const KpackRange r = kpack_range(s, s2r);
  const int per_kpack = s2r.operand == KvOperand::k ? s.block_k / 16 : s.dim / 16;
  return (r.last - r.first + 1) * per_kpack;
}

}  // namespace cdna4::detail
