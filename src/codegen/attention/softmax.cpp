// The online softmax between the two dots, per lane: one query row (lane % 16)
// and keys 16 t + 4 (lane / 16) + r of the block in S tile t, register r. Each
// step is the policy reference's (runtime/attention/arithmetic.hpp): the row
// max across the four lanes of a row with v_permlane32_swap / v_permlane16_swap
// (lanes l ^ 32 and l ^ 16), mc kept negated (fl(m' * -c) = -fl(m' * c)), p =
// exp2(fma(s, c, -mc)), the row sum's partial j mod 16 = (lane / 16, r) per lane.
#include "codegen/attention/context.hpp"

namespace cdna4::codegen::attention {

using namespace isa;

namespace {

// Keys the row does not see -> -inf, only on blocks from first_masked on: key
// 16 t + 4 (l / 16) + r of the block is seen iff 16 t + r < visible - first key.
void emit_mask(AttentionContext& ctx, const AttentionOp& op) {
  if (!ctx.any_mask()) return;
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  const Reg block = r.tmp.sub(0), neg_first = r.tmp.sub(1);
  const std::string skip = ctx.label("mask_skip");
  block_of_stage(ctx, block, op.stage);
  c.s_cmp_lt_u32(block, r.first_masked);
  c.s_cbranch_scc1(skip);
  c.s_mul_i32(neg_first, block, imm(-ctx.geo.block_k));
  c.v_add_u32(r.limit, neg_first, r.visible);
  for (int t = 0; t < ctx.geo.key_tiles(); ++t) {
    if (t) c.v_add_u32(r.limit, imm(-16), r.limit);
    for (int i = 0; i < 4; ++i) {
      c.v_cmp_lt_i32(imm(i), r.limit);
      c.v_cndmask_b32(r.s(t).sub(i), r.neg_inf_v, r.s(t).sub(i));
    }
  }
  c.label(skip);
}

// Both lanes of each pair l, l ^ stride end with max(x_l, x_(l^stride)) in x.
void max_across(Code& c, int stride, Reg x, Reg scratch) {
  c.v_mov_b32(scratch, x);
  c.v_permlane_swap(stride, x, scratch);
  c.v_max_f32(x, x, scratch);
}

void emit_row_max(AttentionContext& ctx) {
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  const Reg mx = r.t1, m_used = r.t2;
  c.v_mov_b32(mx, r.m);
  for (int t = 0; t < ctx.geo.key_tiles(); ++t)
    for (int i = 0; i < 4; ++i) c.v_max_f32(mx, mx, r.s(t).sub(i));
  max_across(c, 32, mx, m_used);
  max_across(c, 16, mx, m_used);
  // m' = m_new, or 0 while it is -inf; -mc = m' * -c; alpha = exp2((m - m') * c).
  c.v_cmp_neq_f32(r.neg_inf, mx);
  c.v_cndmask_b32(m_used, imm(0), mx);
  c.v_mul_f32(r.neg_mc, r.neg_c, m_used);
  c.v_sub_f32(r.alpha, r.m, m_used);
  c.v_mul_f32(r.alpha, r.c, r.alpha);
  c.v_exp_f32(r.alpha, r.alpha);
  c.v_mov_b32(r.m, mx);
}

}  // namespace

void emit_softmax_op(AttentionContext& ctx, const AttentionOp& op) {
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  const AttentionGeometry& g = ctx.geo;
  switch (op.kind) {
    case AttentionOpKind::mask: emit_mask(ctx, op); return;
    case AttentionOpKind::row_max: emit_row_max(ctx); return;
    case AttentionOpKind::exp:
      for (int t = 0; t < g.key_tiles(); ++t)
        for (int i = 0; i < 4; ++i) {
          c.v_fma_f32(r.s(t).sub(i), r.s(t).sub(i), r.c, r.neg_mc);
          c.v_exp_f32(r.s(t).sub(i), r.s(t).sub(i));
        }
      return;
    case AttentionOpKind::row_sum:
      for (int i = 0; i < 4; ++i) c.v_mul_f32(r.l.sub(i), r.l.sub(i), r.alpha);
      for (int t = 0; t < g.key_tiles(); ++t)
        for (int i = 0; i < 4; ++i) c.v_add_f32(r.l.sub(i), r.l.sub(i), r.s(t).sub(i));
      return;
    default:  // rescale_o
      for (int d = 0; d < g.d_tiles(); ++d)
        for (int i = 0; i < 4; ++i) c.v_mul_f32(r.o(d).sub(i), r.o(d).sub(i), r.alpha);
      return;
  }
}

}  // namespace cdna4::codegen::attention
