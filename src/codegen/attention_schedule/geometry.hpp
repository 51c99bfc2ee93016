#pragma once
// The attention schedule's geometry (schedules/README.md, "Attention schedules"):
// what the parser, the verifier and the code generator share.
#include <cdna4/attention.hpp>

#include <optional>

namespace cdna4::detail {

// max(stage) + 1, or num_stages before planning.
int attention_depth(const AttentionSchedule& s);
// K and V blocks are block_k x dim bf16 each; a G2S part is one
// buffer_load_dwordx4 ... lds per wave (waves * 1 KiB).
int attention_block_bytes(const AttentionSchedule& s);
int attention_part_bytes(const AttentionSchedule& s);
// block_bytes / part_bytes, or 0 when the block does not split into whole parts.
int attention_g2s_parts(const AttentionSchedule& s);
int attention_lds_bytes(const AttentionSchedule& s);  // lds_buffers * (K block + V block)
// kpacks of QK^T (32 d each) and of PV (16 keys each).
int qk_kpacks(const AttentionSchedule& s);
int pv_kpacks(const AttentionSchedule& s);
// The kpack range of an op kind: s2r k and dot_qk count QK kpacks; s2r v,
// convert_p and dot_pv PV kpacks; 0 for ops without kpacks.
int kpacks_of(const AttentionSchedule& s, AttentionOpKind kind, KvOperand operand);
bool has_kpack(AttentionOpKind kind);
// The kpacks an op covers: [first, last] (absent kpack: all).
struct KpackRange {
  int first = 0, last = -1;
};
KpackRange kpack_range(const AttentionSchedule& s, const AttentionOp& op);
// ds_reads one lane issues for an S2R (lgkmcnt counts them): K, one
// ds_read_b128 per 16-key tile and kpack (32 d); V, one ds_read_b64_tr_b16 per
// 16-d tile and kpack (16 keys).
int attention_ds_reads(const AttentionSchedule& s, const AttentionOp& s2r);

}  // namespace cdna4::detail
