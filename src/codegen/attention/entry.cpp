// Attention kernel entry: arguments, this workgroup's (query block, head,
// batch), each tensor's buffer descriptor at its (batch, head), Q into
// registers, each lane's G2S and LDS addresses, the KV block count and the
// first block that needs the mask, and the softmax state.
#include <bit>

#include "codegen/attention/context.hpp"
#include "codegen/entry_pieces.hpp"
#include "runtime/attention/arithmetic.hpp"

namespace cdna4::codegen::attention {

using namespace isa;

namespace {

constexpr uint32_t kOutOfRange = 0x80000000u;  // a lane offset past every descriptor's num_records

int log2_exact(int v) { return std::countr_zero(unsigned(v)); }

// ptr += index * stride (64-bit; the stride below 4 GiB).
void advance(Code& c, Reg ptr, Reg index, Reg stride, Reg tmp) {
  c.s_mul_i32(tmp.sub(0), index, stride);
  c.s_mul_hi_u32(tmp.sub(1), index, stride);
  c.s_add_u32(ptr.sub(0), ptr.sub(0), tmp.sub(0));
  c.s_addc_u32(ptr.sub(1), ptr.sub(1), tmp.sub(1));
}

// A descriptor over rows 0 .. rows - 1 of one (batch, head): (rows - 1) * seq + last row's bytes.
void rows_descriptor(Code& c, Reg desc, Reg ptr, Reg seq_stride, int64_t rows, int row_bytes, Reg tmp) {
  c.s_mul_i32(tmp, seq_stride, imm(rows - 1));
  c.s_add_u32(tmp, tmp, imm(row_bytes));
  buffer_descriptor(c, desc, ptr, tmp);
}

void pointers_and_descriptors(AttentionContext& ctx) {
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  const AttentionShape& sh = ctx.shape;
  const Reg batch = r.wg_z, head = r.wg_y, t = r.tmp.sub(0, 2);
  advance(c, r.ptr_q, batch, r.stride(Tensor::q, 0), t);
  advance(c, r.ptr_q, head, r.stride(Tensor::q, 2), t);
  for (auto [ptr, tensor] : {std::pair{r.ptr_k, Tensor::k}, std::pair{r.ptr_v, Tensor::v}}) {
    advance(c, ptr, batch, r.stride(tensor, 0), t);
    advance(c, ptr, r.head_kv, r.stride(tensor, 2), t);
  }
  advance(c, r.ptr_o, batch, r.stride(Tensor::o, 0), t);
  advance(c, r.ptr_o, head, r.stride(Tensor::o, 2), t);
  const int out_bytes = int(element_bytes(sh.out));
  const Reg n = r.tmp.sub(2);
  rows_descriptor(c, r.desc_q, r.ptr_q, r.stride(Tensor::q, 1), sh.seqlen_q, ctx.geo.row_bytes(), n);
  rows_descriptor(c, r.desc_k, r.ptr_k, r.stride(Tensor::k, 1), sh.seqlen_k, ctx.geo.row_bytes(), n);
  rows_descriptor(c, r.desc_v, r.ptr_v, r.stride(Tensor::v, 1), sh.seqlen_k, ctx.geo.row_bytes(), n);
  rows_descriptor(c, r.desc_o, r.ptr_o, r.stride(Tensor::o, 1), sh.seqlen_q, int(sh.dim) * out_bytes, n);
  if (sh.lse) {  // [B][H][Nq] fp32: this (batch, head)'s Nq values
    c.s_mul_i32(n, batch, imm(sh.heads));
    c.s_add_u32(n, n, head);
    c.s_mov_b32(r.tmp.sub(3), imm(sh.seqlen_q * 4));
    advance(c, r.ptr_lse, n, r.tmp.sub(3), t);
    buffer_descriptor(c, r.desc_lse, r.ptr_lse, sh.seqlen_q * 4);
  }
}

// Lane l of wave w holds query row q0 + 16 w + l % 16 and d = 8 (l / 16) .. + 7
// of each 32-d kpack: the B operand of v_mfma_f32_16x16x32_bf16 (Q^T).
void load_q(AttentionContext& ctx) {
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  const Reg offset = r.addr_tmp.sub(0), t = r.addr_tmp.sub(1);
  c.s_lshl_b32(r.tmp.sub(0), r.wave, imm(4));
  c.s_add_u32(r.tmp.sub(0), r.tmp.sub(0), r.q0);
  c.v_add_u32(r.row, r.tmp.sub(0), r.lane16);
  c.v_mul_lo_u32(offset, r.row, r.stride(Tensor::q, 1));
  c.v_lshlrev_b32(t, imm(4), r.group);
  c.v_add_u32(offset, offset, t);
  if (ctx.ragged_queries()) {  // rows past Nq read zeros (their results are never stored)
    c.v_cmp_gt_i32(imm(ctx.shape.seqlen_q), r.row);
    c.v_cndmask_b32(offset, r.out_of_range, offset);
  }
  for (int kp = 0; kp < ctx.geo.qk_kpacks(); ++kp) c.buffer_load_dwordx4(r.q(kp), offset, r.desc_q, imm(0), kp * 64);
}

// G2S: lane l of wave w in part p writes bytes (p * waves + w) * 1024 + 16 l of
// the block, [key][d] rows of D bf16: key row0 + p * part_rows, byte `d` of the
// row. Its global offset is row0 * seq + d plus, per block and part, the
// part's first key * seq (an SGPR). LDS reads: K (the A operand of
// v_mfma_f32_16x16x32_bf16): key l % 16 of the tile, d = 8 (l / 16) .. + 7 of
// the kpack, one ds_read_b128; V^T (A of v_mfma_f32_16x16x16_bf16) by
// ds_read_b64_tr_b16: lane s of each 16-lane group points at key 4 (l / 16) +
// s / 4 of the tile, d = 4 (s % 4) .. + 3 of the d tile, so lane i receives d =
// i of keys 4 (l / 16) .. + 3.
void lane_addresses(AttentionContext& ctx) {
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  const AttentionGeometry& g = ctx.geo;
  const Reg bytes = r.addr_tmp.sub(0), d = r.addr_tmp.sub(1);
  c.v_lshlrev_b32(bytes, imm(4), r.lane);
  c.v_add_u32(bytes, r.wave_chunk, bytes);
  c.v_lshrrev_b32(r.g2s_row, imm(log2_exact(g.row_bytes())), bytes);
  c.v_and_b32(d, imm(g.row_bytes() - 1), bytes);
  c.v_mul_lo_u32(r.g2s_k, r.g2s_row, r.stride(Tensor::k, 1));
  c.v_add_u32(r.g2s_k, r.g2s_k, d);
  c.v_mul_lo_u32(r.g2s_v, r.g2s_row, r.stride(Tensor::v, 1));
  c.v_add_u32(r.g2s_v, r.g2s_v, d);

  c.v_lshlrev_b32(r.lds_k, imm(log2_exact(g.row_bytes())), r.lane16);
  c.v_lshlrev_b32(d, imm(4), r.group);
  c.v_add_u32(r.lds_k, r.lds_k, d);
  const Reg t = r.limit;  // scratch until the first mask
  c.v_lshrrev_b32(d, imm(2), r.lane16);
  c.v_lshlrev_b32(t, imm(2), r.group);
  c.v_add_u32(d, d, t);
  c.v_lshlrev_b32(r.lds_v, imm(log2_exact(g.row_bytes())), d);
  c.v_and_b32(t, imm(3), r.lane);
  c.v_lshlrev_b32(t, imm(3), t);
  c.v_add_u32(r.lds_v, r.lds_v, t);
}

// Blocks this workgroup visits (policy.cpp kv_blocks): all, or with causal up
// to the block of the last key its last row q0 + block_q - 1 sees:
// clamp((last + block_k) >> log2(block_k), 0, all) with last >= -1. The first
// block holding a key its first row does not see: floor(visible(q0) / block_k),
// visible(q0) = clamp(q0 + 1 + Nk - Nq, 0, Nk) (mask.hpp); without causal Nk.
void block_counts(AttentionContext& ctx) {
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  const AttentionShape& sh = ctx.shape;
  const int shift = log2_exact(ctx.geo.block_k);
  if (!sh.causal) {
    c.s_mov_b32(r.blocks, imm(ctx.all_blocks()));
    c.s_mov_b32(r.first_masked, imm(sh.seqlen_k >> shift));
    return;
  }
  c.s_add_i32(r.blocks, r.q0, imm(ctx.geo.block_q - 1 + sh.seqlen_k - sh.seqlen_q));
  c.s_max_i32(r.blocks, r.blocks, imm(-1));
  c.s_add_i32(r.blocks, r.blocks, imm(ctx.geo.block_k));
  c.s_lshr_b32(r.blocks, r.blocks, imm(shift));
  c.s_min_u32(r.blocks, r.blocks, imm(ctx.all_blocks()));
  c.s_add_i32(r.first_masked, r.q0, imm(1 + sh.seqlen_k - sh.seqlen_q));
  c.s_max_i32(r.first_masked, r.first_masked, imm(0));
  c.s_min_i32(r.first_masked, r.first_masked, imm(sh.seqlen_k));
  c.s_lshr_b32(r.first_masked, r.first_masked, imm(shift));
}

// Per lane: the keys of a block its row sees, relative to the block's first
// key and the lane group's first key 4 (l / 16): visible(row) - 4 (l / 16).
void visible_keys(AttentionContext& ctx) {
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  const AttentionShape& sh = ctx.shape;
  c.s_mov_b32(r.tmp.sub(1), imm(sh.seqlen_k));
  if (sh.causal) {
    c.s_mov_b32(r.tmp.sub(0), imm(1 + sh.seqlen_k - sh.seqlen_q));
    c.v_add_u32(r.visible, r.tmp.sub(0), r.row);
    c.v_max_i32(r.visible, imm(0), r.visible);
    c.v_min_i32(r.visible, r.tmp.sub(1), r.visible);
  } else {
    c.v_mov_b32(r.visible, r.tmp.sub(1));
  }
  c.v_lshlrev_b32(r.limit, imm(2), r.group);
  c.v_sub_u32(r.visible, r.visible, r.limit);
}

}  // namespace

void emit_entry(AttentionContext& ctx) {
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  const AttentionShape& sh = ctx.shape;
  const float scale_log2 = cdna4::attention::kArithmetic.scale_log2(sh.softmax_scale());
  c.comment("entry: kernel arguments, workgroup and lane coordinates");
  c.s_load_dwordx2(r.ptr_q, r.kernarg, 0);
  c.s_load_dwordx2(r.ptr_k, r.kernarg, 8);
  c.s_load_dwordx2(r.ptr_v, r.kernarg, 16);
  c.s_load_dwordx2(r.ptr_o, r.kernarg, 24);
  if (sh.lse) c.s_load_dwordx2(r.ptr_lse, r.kernarg, 32);
  for (int i = 0; i < 6; ++i) c.s_load_dwordx2(r.strides.sub(2 * i, 2), r.kernarg, kKernargStrides + 8 * i);
  c.v_and_b32(r.lane, imm(63), r.tid);
  c.v_lshrrev_b32(r.addr_tmp.sub(0), imm(6), r.tid);
  c.v_readfirstlane_b32(r.wave, r.addr_tmp.sub(0));
  c.v_and_b32(r.lane16, imm(15), r.lane);
  c.v_lshrrev_b32(r.group, imm(4), r.lane);
  c.s_lshl_b32(r.wave_chunk, r.wave, imm(10));
  c.s_mul_i32(r.q0, r.wg_x, imm(ctx.geo.block_q));
  s_divide(c, r.head_kv, r.wg_y, uint32_t(sh.heads / sh.heads_kv));
  c.v_mov_b32(r.out_of_range, imm(kOutOfRange));
  c.v_mov_b32(r.neg_inf_v, imm(0xff800000));
  c.s_mov_b32(r.c, imm(std::bit_cast<uint32_t>(scale_log2)));
  c.s_mov_b32(r.neg_c, imm(std::bit_cast<uint32_t>(-scale_log2)));
  c.s_mov_b32(r.ln2, imm(std::bit_cast<uint32_t>(cdna4::attention::kLn2)));
  c.s_mov_b32(r.neg_inf, imm(0xff800000));
  c.s_waitcnt(-1, 0);
  pointers_and_descriptors(ctx);
  c.comment("entry: Q into registers, lane addresses");
  load_q(ctx);
  lane_addresses(ctx);
  block_counts(ctx);
  if (ctx.any_mask()) visible_keys(ctx);
  c.comment("entry: softmax state m = -inf, l = 0, O = 0");
  c.v_mov_b32(r.m, r.neg_inf_v);
  c.v_mov_b32(r.neg_mc, imm(0));
  for (int i = 0; i < 4; ++i) c.v_mov_b32(r.l.sub(i), imm(0));
  for (int d = 0; d < ctx.geo.d_tiles(); ++d)
    for (int i = 0; i < 4; ++i) c.v_mov_b32(r.o(d).sub(i), imm(0));
  c.s_mov_b32(r.iter, imm(0));
  for (int s = 0; s < ctx.depth; ++s)  // block -s of stage s: slot (-s) mod lds_buffers
    c.s_mov_b32(r.slot(s), imm(((ctx.geo.lds_buffers - s % ctx.geo.lds_buffers) % ctx.geo.lds_buffers) *
                               ctx.geo.block_bytes()));
  c.s_waitcnt(0, -1);  // Q
}

}  // namespace cdna4::codegen::attention
