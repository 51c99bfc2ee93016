// Kernel entry: workgroup and wave coordinates, buffer descriptors, each lane's
// global and LDS addresses, and zeroed accumulators.
#include <bit>

#include "codegen/gemm/context.hpp"

namespace cdna4::codegen {

using namespace isa;

namespace {

int log2_exact(int v) { return std::countr_zero(unsigned(v)); }

void buffer_descriptor(Code& c, Reg desc, Reg ptr, int64_t bytes) {
  c.s_mov_b32(desc.sub(0), ptr.sub(0));
  c.s_and_b32(desc.sub(1), ptr.sub(1), imm(0xffff));
  c.s_mov_b32(desc.sub(2), imm(bytes));
  c.s_mov_b32(desc.sub(3), imm(0x20000));
}

// Bytes from the matrix start to one past its last element.
int64_t extent_bytes(int64_t rows, int64_t ld, int64_t cols, int bits) { return ((rows - 1) * ld + cols) * bits / 8; }

// Lane l of wave w in a G2S part loads 16 bytes of the part's chunk w: chunk
// (row block w / (kpacks * chunks), kpack (w / chunks) % kpacks, piece w % chunks),
// row l % mfma_rows, k lane_elements * (l / mfma_rows) + chunk_elements * piece.
void g2s_lane_addresses(GemmContext& ctx, Operand op) {
  Code& c = ctx.code;
  const RegisterPlan& r = ctx.regs;
  const GemmGeometry& g = ctx.geo;
  const GemmGeometry::OperandLayout& l = g.of(op);
  const Reg row_base = r.tmp.sub(0), kcol_base = r.tmp.sub(1), ld = r.tmp.sub(2), piece = r.tmp.sub(3);
  const Reg row = r.addr_tmp.sub(0), kcol = r.addr_tmp.sub(1);
  c.s_lshr_b32(row_base, r.wave, imm(log2_exact(g.kpacks * l.chunks)));
  c.s_mul_i32(row_base, row_base, imm(ctx.mfma_rows(op)));
  c.s_add_u32(row_base, row_base, op == Operand::a ? r.tile_m0 : r.tile_n0);
  c.s_lshr_b32(kcol_base, r.wave, imm(log2_exact(l.chunks)));
  c.s_and_b32(kcol_base, kcol_base, imm(g.kpacks - 1));
  c.s_mul_i32(kcol_base, kcol_base, imm(g.mfma_k));
  c.s_and_b32(piece, r.wave, imm(l.chunks - 1));
  c.s_mul_i32(piece, piece, imm(l.chunk_elements));
  c.s_add_u32(kcol_base, kcol_base, piece);
  c.v_lshlrev_b32(kcol, imm(log2_exact(g.lane_elements)), r.lane_kgroup);
  c.v_add_u32(kcol, kcol_base, kcol);
  c.s_mov_b32(ld, imm(ctx.ld_bytes(op)));
  const int parts = op == Operand::a ? ctx.geo.parts_a : ctx.geo.parts_b;
  for (int p = 0; p < parts; ++p) {
    const Reg addr = r.g2s_addr(op, p, ctx.geo), masked_kcol = r.g2s_kcol(op, p, ctx.geo);
    c.v_add_u32(row, row_base, r.lane_row);
    if (const int first = part_rows(ctx.schedule, op, p).begin) c.v_add_u32(row, imm(first), row);
    c.v_mul_lo_u32(addr, row, ld);
    if (l.element_bits == 16) c.v_lshlrev_b32(masked_kcol, imm(1), kcol);
    if (l.element_bits == 8) c.v_mov_b32(masked_kcol, kcol);
    if (l.element_bits == 4) c.v_lshrrev_b32(masked_kcol, imm(1), kcol);
    c.v_add_u32(addr, addr, masked_kcol);
    if (ctx.needs_mask(op)) {
      c.v_cmp_gt_i32(imm(ctx.rows(op)), row);
      c.v_cndmask_b32(masked_kcol, r.no_column, kcol);
    }
  }
}

// x / d for 0 <= x < 2^32 and d = 3 or 6: the high half of x * ceil(2^33 / 3),
// shifted. `k` is an SGPR for the constant (VOP3 takes no literal on gfx9).
void divide_by_3_or_6(Code& c, Reg q, Reg x, int d, Reg k) {
  c.s_mov_b32(k, imm(0xaaaaaaab));
  c.v_mul_hi_u32(q, k, x);
  c.v_lshrrev_b32(q, imm(d == 3 ? 1 : 2), q);
}

// Row-major operands (fp6 / bf6): the tile is [kpack][row][row_bytes] in LDS and
// lane l of wave w in part p loads its 16-byte unit t = (p * waves + w) * 64 + l:
// kpack t / (rows * u), row (t mod rows * u) / u, piece t mod u of the row, with
// u = row_bytes / 16 (6 or 3). Consecutive lanes read consecutive 16 bytes of a
// row, so a row's bytes are one contiguous run. The lane's k column for masking
// is the first element of its 48-byte (64-element) group, which K (a multiple
// of 64) never splits.
void g2s_row_major_addresses(GemmContext& ctx, Operand op) {
  Code& c = ctx.code;
  const RegisterPlan& r = ctx.regs;
  const GemmGeometry::OperandLayout& l = ctx.geo.of(op);
  const int rows = ctx.tile_rows(op), units = l.row_bytes / 16;
  const Reg scratch{RegFile::v, uint16_t(r.first_fragment), 4};  // free until the first S2R
  const Reg t = scratch.sub(0), kp = scratch.sub(1), row = scratch.sub(2), piece = scratch.sub(3);
  const Reg wave_units = r.tmp.sub(0), ld = r.tmp.sub(1), first_row = r.tmp.sub(2), k = r.tmp.sub(3);
  c.s_lshl_b32(wave_units, r.wave, imm(6));
  c.s_mov_b32(ld, imm(ctx.ld_bytes(op)));
  c.s_mov_b32(first_row, op == Operand::a ? r.tile_m0 : r.tile_n0);
  const int parts = op == Operand::a ? ctx.geo.parts_a : ctx.geo.parts_b;
  for (int p = 0; p < parts; ++p) {
    const Reg addr = r.g2s_addr(op, p, ctx.geo), kcol = r.g2s_kcol(op, p, ctx.geo);
    c.v_add_u32(t, wave_units, r.lane);
    if (p) c.v_add_u32(t, imm(p * ctx.schedule.waves * 64), t);
    c.v_lshrrev_b32(kp, imm(log2_exact(rows)), t);
    divide_by_3_or_6(c, kp, kp, units, k);
    c.s_mov_b32(k, imm(rows * units));
    c.v_mul_lo_u32(row, k, kp);
    c.v_sub_u32(t, t, row);                       // unit within the kpack
    divide_by_3_or_6(c, row, t, units, k);
    c.v_mul_lo_u32(piece, imm(units), row);
    c.v_sub_u32(piece, t, piece);                 // 16-byte piece of the row
    c.v_add_u32(row, first_row, row);             // row of the matrix
    c.v_mul_lo_u32(addr, row, ld);
    c.s_mov_b32(k, imm(l.row_bytes));
    c.v_mul_lo_u32(t, k, kp);
    c.v_add_u32(addr, addr, t);
    c.v_lshlrev_b32(t, imm(4), piece);
    c.v_add_u32(addr, addr, t);
    c.s_mov_b32(k, imm(ctx.geo.mfma_k));
    c.v_mul_lo_u32(kcol, k, kp);
    c.v_cmp_gt_i32(imm(3), piece);                // pieces 0..2: the row's first 64 elements
    c.v_add_u32(t, imm(64), kcol);
    c.v_cndmask_b32(kcol, t, kcol);
    if (ctx.needs_mask(op)) {
      c.v_cmp_gt_i32(imm(ctx.rows(op)), row);
      c.v_cndmask_b32(kcol, r.no_column, kcol);
    }
  }
}

// ds_read address of the wave's first fragment in each slot; fragments
// of (block j, kpack) sit at (j * kpacks + kpack) KiB from it.
void lds_lane_addresses(GemmContext& ctx, Operand op) {
  Code& c = ctx.code;
  const RegisterPlan& r = ctx.regs;
  const Schedule& s = ctx.schedule;
  const GemmGeometry::OperandLayout& l = ctx.geo.of(op);
  const Reg wave_offset = r.tmp.sub(0), lane_offset = r.addr_tmp.sub(0), k = r.tmp.sub(1);
  if (l.row_major) {  // the lane's row of the wave's first block, at its lane group's 24 bytes
    c.s_mul_i32(wave_offset, op == Operand::a ? r.wave_m : r.wave_n, imm(ctx.blocks(op) * ctx.mfma_rows(op) * l.row_bytes));
    c.s_mov_b32(k, imm(l.row_bytes));
    c.v_mul_lo_u32(lane_offset, k, r.lane_row);
    c.v_add_u32(lane_offset, wave_offset, lane_offset);
    c.s_mov_b32(k, imm(ctx.geo.fragment_regs(op) * 4));
    c.v_mul_lo_u32(r.addr_tmp.sub(1), k, r.lane_kgroup);
    c.v_add_u32(lane_offset, lane_offset, r.addr_tmp.sub(1));
  } else {
    c.s_mul_i32(wave_offset, op == Operand::a ? r.wave_m : r.wave_n,
                imm(ctx.blocks(op) * ctx.geo.kpacks * l.chunks * 1024));
    c.v_lshlrev_b32(lane_offset, imm(4), r.lane);
    c.v_add_u32(lane_offset, wave_offset, lane_offset);
  }
  for (int slot = 0; slot < s.lds_buffers; ++slot)
    c.v_add_u32(r.lds_addr(op, slot, s.lds_buffers), imm(lds_offset(s, op, 0, slot)), lane_offset);
}

// MX scales: descriptors over A's M x K/32 and B's K/32 x N bytes, and each
// lane's offset of its row (column) and lane group's K block at k = 0.
void scale_addresses(GemmContext& ctx) {
  Code& c = ctx.code;
  const RegisterPlan& r = ctx.regs;
  const GemmShape& sh = ctx.shape;
  const int64_t k_blocks = sh.k / 32;
  buffer_descriptor(c, r.scale_desc_a, r.scale_ptr_a, sh.m * k_blocks);
  buffer_descriptor(c, r.scale_desc_b, r.scale_ptr_b, k_blocks * sh.n);
  const Reg first = r.tmp.sub(0), scalar = r.tmp.sub(1);
  const Reg base_a = r.scale_base(Operand::a), base_b = r.scale_base(Operand::b);
  c.s_mul_i32(first, r.wave_m, imm(ctx.geo.wave_m));
  c.s_add_u32(first, first, r.tile_m0);
  c.v_add_u32(base_a, first, r.lane_row);
  c.s_mov_b32(scalar, imm(k_blocks));
  c.v_mul_lo_u32(base_a, base_a, scalar);
  c.v_add_u32(base_a, base_a, r.lane_kgroup);
  c.s_mov_b32(scalar, imm(sh.n));
  c.v_mul_lo_u32(base_b, r.lane_kgroup, scalar);
  c.s_mul_i32(first, r.wave_n, imm(ctx.geo.wave_n));
  c.s_add_u32(first, first, r.tile_n0);
  c.v_add_u32(base_b, first, base_b);
  c.v_add_u32(base_b, base_b, r.lane_row);
}

// Batched: move each pointer to this workgroup's matrix, ptr += batch * stride
// bytes (64-bit; validate_shape keeps a stride below 4 GiB).
void batch_pointers(GemmContext& ctx) {
  Code& c = ctx.code;
  const RegisterPlan& r = ctx.regs;
  const GemmShape& sh = ctx.shape;
  const Reg lo = r.tmp.sub(0), hi = r.tmp.sub(1);
  auto advance = [&](Reg ptr, int64_t stride_bytes) {
    c.s_mov_b32(hi, imm(stride_bytes));
    c.s_mul_i32(lo, r.batch_index, hi);
    c.s_mul_hi_u32(hi, r.batch_index, hi);
    c.s_add_u32(ptr.sub(0), ptr.sub(0), lo);
    c.s_addc_u32(ptr.sub(1), ptr.sub(1), hi);
  };
  advance(r.ptr_a, sh.a_stride() * ctx.geo.of(Operand::a).element_bits / 8);
  advance(r.ptr_b, sh.b_stride() * ctx.geo.of(Operand::b).element_bits / 8);
  advance(r.ptr_c, sh.c_stride() * element_bytes(sh.out));
  if (ctx.epilogue() && ctx.epilogue()->c) advance(r.ptr_c_in, sh.c_stride() * element_bits(*ctx.epilogue()->c) / 8);
  if (ctx.schedule.scaled) {  // packed scales: M x K/32 and K/32 x N per matrix
    advance(r.scale_ptr_a, sh.m * (sh.k / 32));
    advance(r.scale_ptr_b, (sh.k / 32) * sh.n);
  }
}

}  // namespace

void emit_entry(GemmContext& ctx) {
  Code& c = ctx.code;
  const RegisterPlan& r = ctx.regs;
  const Schedule& s = ctx.schedule;
  const GemmShape& sh = ctx.shape;
  c.comment("entry: kernel arguments, wave coordinates");
  if (sh.batch > 1) c.s_mov_b32(r.batch_index, r.wg_z_in);
  c.s_load_dwordx2(r.ptr_a, r.kernarg, 0);
  c.s_load_dwordx2(r.ptr_b, r.kernarg, 8);
  c.s_load_dwordx2(r.ptr_c, r.kernarg, 16);
  if (s.scaled) {
    c.s_load_dwordx2(r.scale_ptr_a, r.kernarg, 24);
    c.s_load_dwordx2(r.scale_ptr_b, r.kernarg, 32);
  }
  if (const auto& e = s.epilogue) {
    if (e->c) c.s_load_dwordx2(r.ptr_c_in, r.kernarg, ctx.kernarg_c_in());
    if (e->bias != BiasDim::none) c.s_load_dwordx2(r.ptr_bias, r.kernarg, ctx.kernarg_bias());
    c.s_load_dword(r.alpha, r.kernarg, ctx.kernarg_alpha());
    if (e->c) c.s_load_dword(r.beta, r.kernarg, ctx.kernarg_beta());
  }
  c.v_and_b32(r.lane, imm(63), r.tid);
  c.v_lshrrev_b32(r.addr_tmp.sub(0), imm(6), r.tid);
  c.v_readfirstlane_b32(r.wave, r.addr_tmp.sub(0));
  c.v_and_b32(r.lane_row, imm(ctx.geo.mfma_m - 1), r.lane);
  c.v_lshrrev_b32(r.lane_kgroup, imm(log2_exact(ctx.geo.mfma_m)), r.lane);
  c.s_lshl_b32(r.wave_chunk, r.wave, imm(10));
  c.s_lshr_b32(r.wave_m, r.wave, imm(log2_exact(s.wave_grid_n)));
  c.s_and_b32(r.wave_n, r.wave, imm(s.wave_grid_n - 1));
  c.s_mul_i32(r.tile_m0, r.wg_y, imm(s.tile_m));
  c.s_mul_i32(r.tile_n0, r.wg_x, imm(s.tile_n));
  c.s_mov_b32(r.k_base, imm(0));
  c.v_mov_b32(r.out_of_range, imm(kOutOfRange));
  c.v_mov_b32(r.no_column, imm(kNoColumn));
  c.s_waitcnt(-1, 0);
  if (sh.batch > 1) batch_pointers(ctx);
  buffer_descriptor(c, r.desc_a, r.ptr_a, extent_bytes(sh.m, sh.a_ld(), sh.k, ctx.geo.of(Operand::a).element_bits));
  buffer_descriptor(c, r.desc_b, r.ptr_b, extent_bytes(sh.n, sh.b_ld(), sh.k, ctx.geo.of(Operand::b).element_bits));
  buffer_descriptor(c, r.desc_c, r.ptr_c, extent_bytes(sh.m, sh.c_ld(), sh.n, 8 * element_bytes(sh.out)));
  if (const auto& e = s.epilogue) {
    if (e->c) buffer_descriptor(c, r.desc_c_in, r.ptr_c_in, extent_bytes(sh.m, sh.c_in_ld(), sh.n, element_bits(*e->c)));
    if (e->bias != BiasDim::none)
      buffer_descriptor(c, r.desc_bias, r.ptr_bias,
                        (e->bias == BiasDim::m ? sh.m : sh.n) * element_bits(e->bias_type) / 8);
  }
  if (s.scaled) scale_addresses(ctx);
  c.comment("entry: lane addresses");
  for (Operand op : {Operand::a, Operand::b}) {
    if (ctx.geo.of(op).row_major)
      g2s_row_major_addresses(ctx, op);
    else
      g2s_lane_addresses(ctx, op);
    lds_lane_addresses(ctx, op);
  }
  c.comment("entry: zero accumulators");
  for (int i = 0; i < r.agprs; ++i) c.v_accvgpr_write_b32(a(i), imm(0));
}

}  // namespace cdna4::codegen
