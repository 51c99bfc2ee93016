// After the last KV block: the row sum's 16 partials added as the policy
// reference's butterfly (partial 4 (l / 16) + r: s = 8 -> lanes l ^ 32, 4 ->
// l ^ 16, 2 -> registers r ^ 2, 1 -> r ^ 1; fl(a + b) is commutative, so every
// lane ends with the same sum), O = l == 0 ? +0 : O * rcp(l) stored at O's
// strides as bf16 (RNE) or f32, and LSE = l == 0 ? -inf : (mc + log2 l) * ln2.
// Rows past Nq store nothing (EXEC): with strides, they can be another head's.
#include "codegen/attention/context.hpp"

namespace cdna4::codegen::attention {

using namespace isa;

namespace {

void sum_partials(AttentionContext& ctx) {
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  for (int stride : {32, 16})
    for (int i = 0; i < 4; ++i) {
      c.v_mov_b32(r.t2, r.l.sub(i));
      c.v_permlane_swap(stride, r.l.sub(i), r.t2);
      c.v_add_f32(r.l.sub(i), r.l.sub(i), r.t2);
    }
  c.v_add_f32(r.l.sub(0), r.l.sub(0), r.l.sub(2));
  c.v_add_f32(r.l.sub(1), r.l.sub(1), r.l.sub(3));
  c.v_add_f32(r.l.sub(0), r.l.sub(0), r.l.sub(1));
}

}  // namespace

void emit_store(AttentionContext& ctx) {
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  const AttentionGeometry& g = ctx.geo;
  const AttentionShape& sh = ctx.shape;
  const Reg l = r.l.sub(0), inverse = r.t1, lse = r.t2;
  c.comment("epilogue: l, O / l, LSE");
  sum_partials(ctx);
  c.v_rcp_f32(inverse, l);
  c.v_cmp_neq_f32(imm(0), l);  // VCC: the row saw a key
  for (int d = 0; d < g.d_tiles(); ++d)
    for (int i = 0; i < 4; ++i) {
      c.v_mul_f32(r.o(d).sub(i), r.o(d).sub(i), inverse);
      c.v_cndmask_b32(r.o(d).sub(i), imm(0), r.o(d).sub(i));
    }
  if (sh.lse) {
    c.v_log_f32(lse, l);
    c.v_sub_f32(lse, lse, r.neg_mc);
    c.v_mul_f32(lse, r.ln2, lse);
    c.v_cndmask_b32(lse, r.neg_inf_v, lse);
  }
  if (ctx.ragged_queries()) {
    c.v_cmp_gt_i32(imm(sh.seqlen_q), r.row);
    c.s_and_saveexec_b64(r.saved_exec, vcc);
  }
  // Element d = 16 dtile + 4 (l / 16) + i of the row: offset row * seq + (4 (l / 16)) * size, + (16 dtile + i) * size.
  const int size = int(element_bytes(sh.out));
  const Reg offset = r.addr_tmp.sub(0), t = r.addr_tmp.sub(1);
  c.v_mul_lo_u32(offset, r.row, r.stride(Tensor::o, 1));
  c.v_lshlrev_b32(t, imm(size == 4 ? 4 : 3), r.group);
  c.v_add_u32(offset, offset, t);
  for (int d = 0; d < g.d_tiles(); ++d)
    for (int i = 0; i < 4; ++i) {
      const int at = (16 * d + i) * size;
      if (sh.out == OutType::f32) {
        c.buffer_store_dword(r.o(d).sub(i), offset, r.desc_o, imm(0), at);
      } else if (i % 2 == 0) {  // two bf16 in one register (the K fragments are free now)
        const Reg pair = r.k_fragment(g, 0, 0).sub(0).sub(0);
        const Reg packed{RegFile::v, uint16_t(pair.index + 2 * d + i / 2)};
        c.v_cvt_pk_bf16_f32(packed, r.o(d).sub(i), r.o(d).sub(i + 1));
        c.buffer_store_short(packed, offset, r.desc_o, imm(0), at);
        c.buffer_store_short_d16_hi(packed, offset, r.desc_o, imm(0), at + size);
      }
    }
  if (sh.lse) {  // one lane of each row: l / 16 == 0
    c.v_cmp_gt_u32(imm(16), r.lane);
    c.s_and_b64(exec, exec, vcc);
    c.v_lshlrev_b32(offset, imm(2), r.row);
    c.buffer_store_dword(lse, offset, r.desc_lse, imm(0), 0);
  }
}

}  // namespace cdna4::codegen::attention
