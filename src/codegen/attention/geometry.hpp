#pragma once
// The sizes an attention schedule implies: MFMA tiles, G2S parts, LDS slots
// and how many instructions each op issues (the planner's and the lowering's
// wait counts follow from these).
#include "cdna4/attention.hpp"

namespace cdna4::codegen::attention {

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
  int part_bytes() const { return 1024 * waves; }
  int parts() const { return block_bytes() / part_bytes(); }
  int part_rows() const { return part_bytes() / row_bytes(); }  // keys a G2S part holds
  // K slots first, then V slots.
  int slot_offset(KvOperand op, int slot) const {
    return (op == KvOperand::k ? 0 : lds_buffers * block_bytes()) + slot * block_bytes();
  }
  int lds_bytes() const { return 2 * lds_buffers * block_bytes(); }
};

// Memory instructions one op issues: VM (g2s) and LGKM (s2r's ds_reads).
int vm_instructions(const AttentionOp& op);
int lgkm_instructions(const AttentionGeometry& g, const AttentionOp& op);
// Stages 0 .. depth - 1.
int depth(const AttentionSchedule& s);

}  // namespace cdna4::codegen::attention
