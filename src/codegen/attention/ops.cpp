// The memory and MFMA ops of an attention iteration: G2S of a K or V part by
// LDS-DMA, S2R of K (ds_read_b128) and V^T (ds_read_b64_tr_b16), S^T = K Q^T,
// P to bf16, O^T += V^T P^T.
#include "codegen/attention/context.hpp"

namespace cdna4::codegen::attention {

using namespace isa;

namespace {

constexpr const char* kQkMfma = "v_mfma_f32_16x16x32_bf16";
constexpr const char* kPvMfma = "v_mfma_f32_16x16x16_bf16";

// Part `part` of block i - stage: keys first .. first + part_rows - 1 from
// global (rows past Nk get an offset past the descriptor: zeros) to the slot.
void emit_g2s(AttentionContext& ctx, const AttentionOp& op) {
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  const AttentionGeometry& g = ctx.geo;
  const bool k = op.operand == KvOperand::k;
  const Reg first = r.tmp.sub(0), left = r.tmp.sub(1), lds = r.tmp.sub(2), addr = ctx.next_addr();
  block_of_stage(ctx, first, op.stage);
  c.s_mul_i32(first, first, imm(g.block_k));
  if (op.part) c.s_add_u32(first, first, imm(op.part * g.part_rows()));
  if (ctx.ragged_keys()) {
    c.s_sub_i32(left, imm(ctx.shape.seqlen_k), first);
    c.v_cmp_gt_i32(left, r.g2s_row);
  }
  c.s_mul_i32(first, first, r.stride(k ? Tensor::k : Tensor::v, 1));
  c.v_add_u32(addr, first, k ? r.g2s_k : r.g2s_v);
  if (ctx.ragged_keys()) c.v_cndmask_b32(addr, r.out_of_range, addr);
  c.s_add_u32(lds, r.wave_chunk, r.slot(op.stage));
  c.s_add_u32(m0, lds, imm(g.slot_offset(op.operand, 0) + op.part * g.part_bytes()));
  c.buffer_load_dwordx4_lds(addr, k ? r.desc_k : r.desc_v, imm(0), 0);
}

void emit_s2r(AttentionContext& ctx, const AttentionOp& op) {
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  const AttentionGeometry& g = ctx.geo;
  const bool k = op.operand == KvOperand::k;
  const Reg addr = ctx.next_addr();
  c.s_add_u32(r.tmp.sub(2), r.slot(op.stage), imm(g.slot_offset(op.operand, 0)));
  c.v_add_u32(addr, r.tmp.sub(2), k ? r.lds_k : r.lds_v);
  const int tile_bytes = 16 * g.row_bytes();
  if (k) {
    const KpackRange kps = g.kpack_range(op);
    for (int kp = kps.first; kp <= kps.last; ++kp)
      for (int t = 0; t < g.key_tiles(); ++t) c.ds_read_b128(r.k_fragment(g, kp, t), addr, t * tile_bytes + kp * 64);
    return;
  }
  const KpackRange kts = g.kpack_range(op);
  for (int t = kts.first; t <= kts.last; ++t)
    for (int d = 0; d < g.d_tiles(); ++d) c.ds_read_b64_tr(16, r.v_fragment(g, d, t), addr, t * tile_bytes + d * 32);
}

}  // namespace

void emit_memory_op(AttentionContext& ctx, const AttentionOp& op) {
  if (op.kind == AttentionOpKind::g2s) emit_g2s(ctx, op);
  else emit_s2r(ctx, op);
}

void emit_dot_op(AttentionContext& ctx, const AttentionOp& op) {
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  const AttentionGeometry& g = ctx.geo;
  switch (op.kind) {
    case AttentionOpKind::dot_qk: {  // S^T tile t = K_t Q^T, d in order from +0
      const KpackRange kps = g.kpack_range(op);
      for (int kp = kps.first; kp <= kps.last; ++kp)
        for (int t = 0; t < g.key_tiles(); ++t) {
          if (kp == 0)
            for (int i = 0; i < 4; ++i) c.v_mov_b32(r.s(t).sub(i), imm(0));
          c.v_mfma(kQkMfma, r.s(t), r.k_fragment(g, kp, t), r.q(kp), r.s(t));
        }
      return;
    }
    case AttentionOpKind::convert_p: {  // the four p of a tile, bf16 RNE: the B operand of dot_pv
      const KpackRange kts = g.kpack_range(op);
      for (int t = kts.first; t <= kts.last; ++t)
        for (int h = 0; h < 2; ++h) c.v_cvt_pk_bf16_f32(r.p(t).sub(h), r.s(t).sub(2 * h), r.s(t).sub(2 * h + 1));
      return;
    }
    default: {  // dot_pv: O^T d tile += V^T P^T, each d tile's keys in order
      const KpackRange kts = g.kpack_range(op);
      for (int t = kts.first; t <= kts.last; ++t)
        for (int d = 0; d < g.d_tiles(); ++d) c.v_mfma(kPvMfma, r.o(d), r.v_fragment(g, d, t), r.p(t), r.o(d));
      return;
    }
  }
}

}  // namespace cdna4::codegen::attention
