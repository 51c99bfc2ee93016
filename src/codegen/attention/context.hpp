#pragma once
// Everything the attention lowering passes share: the planned schedule, the
// shape, the register map and the code being built.
#include <cstdint>
#include <string>

#include "cdna4/attention.hpp"
#include "codegen/attention_schedule/geometry.hpp"
#include "codegen/isa/code.hpp"

namespace cdna4::codegen::attention {

// Kernel arguments: five pointers, then byte strides (uint32) of Q, K, V, O.
enum class Tensor { q, k, v, o };
constexpr int kKernargStrides = 40;

// The register map (registers.cpp). SGPRs and VGPRs by role; the per-lane
// tiles as runs of VGPRs.
struct AttentionRegisters {
  // SGPRs
  isa::Reg kernarg, wg_x, wg_y, wg_z;
  isa::Reg ptr_q, ptr_k, ptr_v, ptr_o, ptr_lse;
  isa::Reg strides;  // 12: batch, seq, head of Q, K, V, O (bytes)
  isa::Reg desc_q, desc_k, desc_v, desc_o, desc_lse;
  isa::Reg wave, wave_chunk, q0, head_kv, blocks, first_masked, iter, trips;
  isa::Reg c, neg_c, ln2, neg_inf, tmp, saved_exec;
  isa::Reg slot_base;  // one per stage: (block mod lds_buffers) * block bytes of that stage's block
  int sgprs = 0;
  // VGPRs
  isa::Reg tid, lane, lane16, group, addr_tmp, out_of_range, neg_inf_v;
  isa::Reg g2s_k, g2s_v, g2s_row, lds_k, lds_v, visible, limit, row;
  isa::Reg m, neg_mc, alpha, t1, t2, l;  // l: 4 row-sum partials
  int first_q = 0, first_s = 0, first_p = 0, first_o = 0, first_kf = 0, first_vf = 0;
  int vgprs = 0;

  isa::Reg stride(Tensor t, int which) const { return strides.sub(3 * int(t) + which, 1); }  // 0 batch, 1 seq, 2 head
  isa::Reg slot(int stage) const { return slot_base.sub(stage); }
  isa::Reg q(int kpack) const { return isa::v(first_q + 4 * kpack, 4); }
  isa::Reg s(int tile) const { return isa::v(first_s + 4 * tile, 4); }
  isa::Reg p(int tile) const { return isa::v(first_p + 2 * tile, 2); }
  isa::Reg o(int dtile) const { return isa::v(first_o + 4 * dtile, 4); }
  isa::Reg k_fragment(const AttentionGeometry& g, int kpack, int tile) const {
    return isa::v(first_kf + 4 * (kpack * g.key_tiles() + tile), 4);
  }
  isa::Reg v_fragment(const AttentionGeometry& g, int dtile, int tile) const {
    return isa::v(first_vf + 2 * (dtile * g.key_tiles() + tile), 2);
  }

  // Throws cdna4::Error when the tiles do not fit the 256 architectural VGPRs.
  static AttentionRegisters make(const AttentionGeometry& g, int stages, const std::string& name);
};

struct AttentionContext {
  const AttentionSchedule& schedule;
  const AttentionShape& shape;
  AttentionGeometry geo;
  AttentionRegisters regs;
  isa::Code code;
  int depth = 1;
  int labels = 0;    // unique label suffixes
  int addr_turn = 0;  // which address temporary the next memory op uses
  int loop_instructions = 0;

  AttentionContext(const AttentionSchedule& s, const AttentionShape& sh)
      : schedule(s), shape(sh), geo(AttentionGeometry::of(s)),
        regs(AttentionRegisters::make(geo, cdna4::depth(s), s.name)), depth(cdna4::depth(s)) {}

  int64_t all_blocks() const { return (shape.seqlen_k + geo.block_k - 1) / geo.block_k; }
  bool ragged_keys() const { return shape.seqlen_k % geo.block_k != 0; }
  bool ragged_queries() const { return shape.seqlen_q % geo.block_q != 0; }
  // Some visited block holds keys a row does not see.
  bool any_mask() const { return shape.causal || ragged_keys(); }
  isa::Reg next_addr() { return regs.addr_tmp.sub(addr_turn ^= 1); }
  std::string label(const std::string& what) { return what + "_" + std::to_string(labels++); }
};

// Passes, one file each.
void emit_entry(AttentionContext& ctx);    // entry.cpp: arguments, descriptors, Q, lane addresses, block counts
void emit_kv_loop(AttentionContext& ctx);  // kv_loop.cpp: prologue, loop, epilogue over the KV blocks
void emit_store(AttentionContext& ctx);    // store_o.cpp: l, O / l, LSE, the stores
// One op on the block of its stage (ops.cpp, softmax.cpp).
void emit_memory_op(AttentionContext& ctx, const AttentionOp& op);   // g2s, s2r
void emit_dot_op(AttentionContext& ctx, const AttentionOp& op);      // dot_qk, convert_p, dot_pv
void emit_softmax_op(AttentionContext& ctx, const AttentionOp& op);  // mask, row_max, exp, row_sum, rescale_o
// The block index of `stage` in this iteration, and its first key, into SGPRs.
void block_of_stage(AttentionContext& ctx, isa::Reg block, int stage);

}  // namespace cdna4::codegen::attention
