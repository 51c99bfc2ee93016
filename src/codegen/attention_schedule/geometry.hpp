#pragma once
// The sizes an attention schedule implies (schedules/README.md, "Attention
// schedules"): MFMA tiles and kpacks, G2S parts, LDS slots, and how many memory
// instructions each op issues. The parser, the verifier, the planner and the
// lowering all read them from here.
#include <cdna4/attention.hpp>

namespace cdna4 {

// The kpacks an op covers: [first, last] (absent kpack: all).
struct KpackRange {
  int first = 0, last = -1;
};

struct AttentionGeometry {
  int dim = 128, waves = 4, block_q = 64, block_k = 64, lds_buffers = 2;

  static AttentionGeometry of(const AttentionSchedule& s) {
    return {s.dim, s.waves, s.block_q, s.block_k, s.lds_buffers};
  }
  int key_tiles() const { return block_k / 16; }  // 16-key tiles of S and P (dot_pv kpacks)
  int qk_kpacks() const { return dim / 32; }      // 32-d kpacks of dot_qk
  int d_tiles() const { return dim / 16; }        // 16-d tiles of O
  int row_bytes() const { return dim * 2; }       // one key (or query) row of bf16
  int block_bytes() const { return block_k * row_bytes(); }  // one K or V block in LDS
  // A G2S part is one buffer_load_dwordx4 ... lds per wave (1 KiB per wave).
  int part_bytes() const { return 1024 * waves; }
  // block_bytes / part_bytes, or 0 when the block does not split into whole parts.
  int parts() const { return block_bytes() % part_bytes() == 0 ? block_bytes() / part_bytes() : 0; }
  int part_rows() const { return part_bytes() / row_bytes(); }  // keys a G2S part holds
  // K slots first, then V slots.
  int slot_offset(KvOperand op, int slot) const {
    return (op == KvOperand::k ? 0 : lds_buffers * block_bytes()) + slot * block_bytes();
  }
  int lds_bytes() const { return 2 * lds_buffers * block_bytes(); }
  // The kpack count of an op kind: s2r k and dot_qk count QK kpacks (32 d); s2r v,
  // convert_p and dot_pv PV kpacks (16 keys); 0 for ops without kpacks.
  int kpacks(AttentionOpKind kind, KvOperand operand) const;
  KpackRange kpack_range(const AttentionOp& op) const;
};

bool has_kpack(AttentionOpKind kind);  // s2r, dot_qk, convert_p, dot_pv
// Memory instructions one op issues: VM (a g2s part) and LGKM (an s2r's
// ds_reads: K, one ds_read_b128 per 16-key tile and 32-d kpack; V, one
// ds_read_b64_tr_b16 per 16-d tile and 16-key kpack).
int vm_instructions(const AttentionOp& op);
int lgkm_instructions(const AttentionGeometry& g, const AttentionOp& op);
// Stages 0 .. depth - 1: max(stage) + 1, or num_stages before planning.
int depth(const AttentionSchedule& s);

}  // namespace cdna4
