// Kernel entry: workgroup and wave coordinates, buffer descriptors, each lane's
// global and LDS addresses, and zeroed accumulators.
#include <bit>

#include "codegen/entry_pieces.hpp"
#include "codegen/gemm/context.hpp"
#include "common/limits.hpp"

namespace cdna4::codegen {

using namespace isa;

namespace {

int log2_exact(int v) { return std::countr_zero(unsigned(v)); }

// tile_m0 / tile_n0 of this workgroup (Schedule::workgroup_order). The
// dispatch order is x fastest: id = wg_y * tiles_n + wg_x, and XCD id % xcds
// receives it. With xcds > 1 the first whole rounds of xcds ids are renumbered
// id' = (id % xcds) * (full / xcds) + id / xcds, so each XCD's workgroups hold
// consecutive numbers; the rest keep theirs. Number t then lies in group t /
// (group_m * tiles_n) of group_m tile rows (fewer in the last group), where it
// runs down the rows first: row first_row + r % rows, column r / rows.
void workgroup_tile(GemmContext& ctx) {
  Code& c = ctx.code;
  const RegisterPlan& r = ctx.regs;
  const Schedule& s = ctx.schedule;
  const WorkgroupOrder& o = s.workgroup_order;
  if (o == WorkgroupOrder{}) {
    c.s_mul_i32(r.tile_m0, r.wg_y, imm(s.tile_m));
    c.s_mul_i32(r.tile_n0, r.wg_x, imm(s.tile_n));
    return;
  }
  const uint32_t tiles_n = uint32_t((ctx.shape.n + s.tile_n - 1) / s.tile_n);
  const uint32_t tiles_m = uint32_t((ctx.shape.m + s.tile_m - 1) / s.tile_m);
  const uint32_t total = tiles_n * tiles_m, full = total - total % uint32_t(o.xcds);
  const Reg id = r.tmp.sub(0), t = r.tmp.sub(1), u = r.tmp.sub(2), rows = r.tmp.sub(3);
  c.s_mul_i32(id, r.wg_y, imm(tiles_n));
  c.s_add_u32(id, id, r.wg_x);
  if (o.xcds > 1 && full > 0) {
    c.s_and_b32(t, id, imm(o.xcds - 1));
    c.s_mul_i32(t, t, imm(full / uint32_t(o.xcds)));
    c.s_lshr_b32(u, id, imm(std::countr_zero(unsigned(o.xcds))));
    c.s_add_u32(t, t, u);
    c.s_cmp_lt_u32(id, imm(full));
    c.s_cselect_b32(id, t, id);
  }
  const uint32_t group_m = std::min<uint32_t>(uint32_t(o.group_m), tiles_m), group = group_m * tiles_n;
  const uint32_t last_rows = tiles_m - (tiles_m - 1) / group_m * group_m;
  s_divide(c, t, id, group);                      // group index
  c.s_mul_i32(u, t, imm(group));
  c.s_sub_u32(id, id, u);                         // number within the group
  c.s_mul_i32(t, t, imm(group_m));                // its first tile row
  c.s_mov_b32(rows, imm(group_m));
  if (last_rows != group_m) {
    c.s_cmp_ge_u32(t, imm(tiles_m - last_rows));
    c.s_cselect_b32(rows, imm(last_rows), rows);
  }
  // column = id / rows, row = first + id - column * rows, for rows = group_m or last_rows.
  s_divide(c, u, id, group_m);
  if (last_rows != group_m) {
    s_divide(c, r.tile_n0, id, last_rows);
    c.s_cmp_lg_u32(rows, imm(group_m));
    c.s_cselect_b32(u, r.tile_n0, u);
  }
  c.s_mul_i32(rows, rows, u);
  c.s_sub_u32(id, id, rows);
  c.s_add_u32(id, id, t);
  c.s_mul_i32(r.tile_m0, id, imm(s.tile_m));
  c.s_mul_i32(r.tile_n0, u, imm(s.tile_n));
}

// Bytes from the matrix start to one past its last element.
int64_t extent_bytes(int64_t rows, int64_t ld, int64_t cols, int bits) { return ((rows - 1) * ld + cols) * bits / 8; }

// An operand's extent as the kernel reads it (GemmShape::read_elements).
int64_t operand_extent_bytes(const GemmContext& ctx, Operand op) {
  const int bits = ctx.geo.of(op).element_bits;
  return ctx.shape.read_elements(ctx.schedule.layout, op, bits) * bits / 8;
}

// K-major rows (A "t", B "n"). A G2S part holds part_rows tile rows (M or N)
// and all of tile_k; stored K-major that is tile_k rows of k, each C =
// part_rows x element bytes contiguous in memory, and it sits so in LDS: a
// G2S wave's 1 KiB is 1024 / C whole k rows (whole 128-byte lines for bf16 and
// 8 waves). Unit u (16 bytes) of k row k sits at position u ^ swizzle(k).
// ds_read_b64_tr_b{16,8} gives lane i of each 16-lane block column i of an n x
// 16 tile (n = 4 b16 or 8 bytes; the block's lanes point at its rows, 16 / n
// lanes a row): the n consecutive k of one M (N) row the lane's fragment needs,
// two reads per 16-byte piece. A half-wave's read covers the k rows of its
// tile rows (and of both lane groups for 16-row MFMAs) and `width` units of
// each (the block's 16 or 32 columns); the rows that share a 256-byte bank
// row differ in the k bits swizzle() takes (register_plan.cpp), which it maps
// to distinct multiples of `width`, so the half-wave hits 64 distinct banks
// (bf16 with 16-row MFMAs and 32-byte k rows, the one geometry without room,
// keeps a 2-way conflict). The swizzled bits are all the lane's own (its tile
// row and lane group), never a read's kpack, piece or half, so each lane has
// one base address; a block moves it by an XOR of its first unit and, past a
// part, an offset.
void swizzle_of_k(GemmContext& ctx, const GemmGeometry::OperandLayout& l, Reg f, Reg k, Reg t) {
  Code& c = ctx.code;
  c.v_mov_b32(f, imm(0));
  for (int i = 0; i < l.k_swizzle_count; ++i) {
    c.v_bfe_u32(t, k, imm(l.k_swizzle_bits[i]), imm(1));
    c.v_lshlrev_b32(t, imm(l.first_swizzle_unit_bit + i), t);
    c.v_or_b32(f, f, t);
  }
}

// d = the row swizzle of tile row `row` (row_swizzle.hpp), `t` as scratch: one
// bit field when the map is the identity, else each bit the parity of its row bits.
void row_swizzle(Code& c, const GemmGeometry::OperandLayout& l, Reg d, Reg row, Reg t) {
  const int shift = log2_exact(l.swizzle_rows);
  const RowSwizzle& s = l.row_swizzle;
  if (s.identity()) {
    c.v_bfe_u32(d, row, imm(shift), imm(s.bits));
    return;
  }
  c.v_mov_b32(d, imm(0));
  for (int i = 0; i < s.bits; ++i)
    for (int j = 0; j < s.bits; ++j)
      if (s.masks[size_t(i)] >> j & 1) {
        c.v_bfe_u32(t, row, imm(shift + j), imm(1));
        c.v_lshlrev_b32(t, imm(i), t);
        c.v_xor_b32(d, d, t);
      }
}

// Lane l of wave w in a part writes bytes b = w x 1024 + 16 l of it: k row
// b / C, position b mod C / 16, so it loads unit position ^ swizzle(k) of that
// k row: elements part_first + unit x 16 / size of the operand's rows.
void g2s_k_major_addresses(GemmContext& ctx, Operand op) {
  Code& c = ctx.code;
  const RegisterPlan& r = ctx.regs;
  const GemmGeometry::OperandLayout& l = ctx.geo.of(op);
  const int row_shift = log2_exact(l.k_row_bytes), bytes = l.element_bits / 8;
  const Reg part_bytes{RegFile::v, uint16_t(r.first_fragment)}, f{RegFile::v, uint16_t(r.first_fragment + 1)},
      t{RegFile::v, uint16_t(r.first_fragment + 2)};  // scratch until S2R
  const Reg unit = r.addr_tmp.sub(0), column = r.addr_tmp.sub(1);
  const Reg wave_bytes = r.tmp.sub(0), ld = r.tmp.sub(1);
  c.s_lshl_b32(wave_bytes, r.wave, imm(10));
  c.v_lshlrev_b32(part_bytes, imm(4), r.lane);
  c.v_add_u32(part_bytes, wave_bytes, part_bytes);
  c.s_mov_b32(ld, imm(ctx.ld_bytes(op)));
  const int parts = op == Operand::a ? ctx.geo.parts_a : ctx.geo.parts_b;
  for (int p = 0; p < parts; ++p) {
    const Reg addr = r.g2s_addr(op, p, ctx.geo), kcol = r.g2s_kcol(op, p, ctx.geo);
    c.v_lshrrev_b32(kcol, imm(row_shift), part_bytes);  // k row
    swizzle_of_k(ctx, l, f, kcol, t);
    c.v_bfe_u32(unit, part_bytes, imm(4), imm(row_shift - 4));
    c.v_xor_b32(unit, unit, f);
    c.v_lshlrev_b32(column, imm(log2_exact(16 / bytes)), unit);
    c.v_add_u32(column, op == Operand::a ? r.tile_m0 : r.tile_n0, column);
    if (const int first = part_rows(ctx.schedule, op, p).begin) c.v_add_u32(column, imm(first), column);
    c.v_mul_lo_u32(addr, kcol, ld);
    c.v_lshlrev_b32(t, imm(log2_exact(bytes)), column);
    c.v_add_u32(addr, addr, t);
    if (ctx.needs_mask(op)) {
      c.v_cmp_gt_i32(imm(ctx.rows(op)), column);
      c.v_cndmask_b32(kcol, r.no_column, kcol);
    }
  }
}

// Swizzled rows (K contiguous, 4 to 16 bits). The operand's tile sits in LDS
// as its rows, R = tile_k x element bytes each, so a G2S wave's 1 KiB is
// 1024 / R whole rows (or part of one) that are contiguous in memory: whole
// 128-byte lines where R >= 128. Unit u (16 bytes) of row r sits at position
// u ^ swizzle(r), swizzle(r) = (r / max(1, 256 / R)) mod min(R / 16, 16). 16
// lanes reading one unit of 16 consecutive rows (256 bytes): the swizzle puts
// the rows that share a 256-byte bank row at distinct positions, so they hit
// 64 distinct banks, and so do the 8 lanes a ds_read_b128 serves a clock
// (common/lds_rules.hpp). Lane l of wave w in part p
// writes bytes b = w * 1024 + 16 l of the part: row b / R, position b mod R /
// 16, so it loads unit position ^ swizzle(row) of that row.
void g2s_swizzled_row_addresses(GemmContext& ctx, Operand op) {
  Code& c = ctx.code;
  const RegisterPlan& r = ctx.regs;
  const GemmGeometry::OperandLayout& l = ctx.geo.of(op);
  const int row_shift = log2_exact(l.tile_row_bytes);
  const Reg bytes{RegFile::v, uint16_t(r.first_fragment)}, swz{RegFile::v, uint16_t(r.first_fragment + 1)};  // scratch until S2R
  const Reg row = r.addr_tmp.sub(0), unit = r.addr_tmp.sub(1);
  const Reg wave_bytes = r.tmp.sub(0), ld = r.tmp.sub(1);
  c.s_lshl_b32(wave_bytes, r.wave, imm(10));
  c.v_lshlrev_b32(bytes, imm(4), r.lane);
  c.v_add_u32(bytes, wave_bytes, bytes);         // b - part start
  c.s_mov_b32(ld, imm(ctx.ld_bytes(op)));
  const int parts = op == Operand::a ? ctx.geo.parts_a : ctx.geo.parts_b;
  for (int p = 0; p < parts; ++p) {
    const Reg addr = r.g2s_addr(op, p, ctx.geo), kcol = r.g2s_kcol(op, p, ctx.geo);
    c.v_lshrrev_b32(row, imm(row_shift), bytes);
    if (const int first = part_rows(ctx.schedule, op, p).begin) c.v_add_u32(row, imm(first), row);  // row in the tile
    row_swizzle(c, l, swz, row, unit);
    c.v_bfe_u32(unit, bytes, imm(4), imm(row_shift - 4));
    c.v_xor_b32(unit, unit, swz);                // the unit of the row this lane loads
    c.v_add_u32(row, op == Operand::a ? r.tile_m0 : r.tile_n0, row);
    c.v_mul_lo_u32(addr, row, ld);
    c.v_lshlrev_b32(kcol, imm(4), unit);
    c.v_add_u32(addr, addr, kcol);
    c.v_lshlrev_b32(kcol, imm(log2_exact(128 / l.element_bits)), unit);
    if (ctx.needs_mask(op)) {
      c.v_cmp_gt_i32(imm(ctx.rows(op)), row);
      c.v_cndmask_b32(kcol, r.no_column, kcol);
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
    if (p) c.v_add_u32(t, imm(p * ctx.schedule.waves * gfx950::kWaveSize), t);
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

// K-major rows: lane l of 16-lane block b reads tile row l % 16 / G (G = 16 / n
// lanes a row) of its block's n x 16 tile, at column n (l % G): k row
// lane_elements x g + that row (g: the block's lane group), column 16 c + n (l %
// G) of the wave's first block (c: the block's 16-column half of a 32-row
// MFMA), in the part that holds the wave's first row.
void k_major_read_base(GemmContext& ctx, Operand op, Reg lane_offset) {
  Code& c = ctx.code;
  const RegisterPlan& r = ctx.regs;
  const GemmGeometry::OperandLayout& l = ctx.geo.of(op);
  const int n = 64 / l.element_bits, bytes = l.element_bits / 8, rows16 = ctx.mfma_rows(op) / 16;
  const Reg k{RegFile::v, uint16_t(r.first_fragment)}, column{RegFile::v, uint16_t(r.first_fragment + 1)},
      f{RegFile::v, uint16_t(r.first_fragment + 2)}, t{RegFile::v, uint16_t(r.first_fragment + 3)};
  const Reg first_row = r.tmp.sub(0), part_offset = r.tmp.sub(1), first_unit = r.tmp.sub(2), row_bytes = r.tmp.sub(3);
  c.v_bfe_u32(t, r.lane, imm(4), imm(2));                        // lane block b
  c.v_lshrrev_b32(k, imm(log2_exact(rows16)), t);                // g
  c.v_lshlrev_b32(k, imm(log2_exact(ctx.geo.lane_elements)), k);
  c.v_bfe_u32(column, r.lane, imm(log2_exact(16 / n)), imm(log2_exact(n)));  // tile row
  c.v_add_u32(k, k, column);
  c.v_and_b32(column, imm(rows16 - 1), t);                       // c
  c.v_lshlrev_b32(column, imm(4), column);
  c.v_and_b32(t, imm(16 / n - 1), r.lane);
  c.v_lshlrev_b32(t, imm(log2_exact(n)), t);
  c.v_add_u32(column, column, t);                                // column in the block
  c.v_lshlrev_b32(column, imm(log2_exact(bytes)), column);       // its bytes
  c.s_mul_i32(first_row, op == Operand::a ? r.wave_m : r.wave_n, imm(ctx.blocks(op) * ctx.mfma_rows(op)));
  c.s_lshr_b32(part_offset, first_row, imm(log2_exact(l.part_rows)));
  c.s_mul_i32(part_offset, part_offset, imm(ctx.schedule.waves * 1024));
  c.s_and_b32(first_unit, first_row, imm(l.part_rows - 1));
  c.s_mul_i32(first_unit, first_unit, imm(bytes));
  c.v_add_u32(column, first_unit, column);                       // bytes into the k row
  swizzle_of_k(ctx, l, f, k, t);
  c.v_lshlrev_b32(f, imm(4), f);
  c.v_xor_b32(column, column, f);
  c.s_mov_b32(row_bytes, imm(l.k_row_bytes));
  c.v_mul_lo_u32(lane_offset, row_bytes, k);
  c.v_add3_u32(lane_offset, part_offset, lane_offset, column);
}

// ds_read address of the lane's part of the wave's first fragment, per slot.
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
  } else if (l.k_major) {
    k_major_read_base(ctx, op, lane_offset);
  } else {  // swizzled rows
    // Row r = the wave's first + l % mfma_rows, at unit swizzle(r) ^ the lane
    // group's first unit; a read adds its kpack's and piece's units with an XOR.
    const Reg t = r.addr_tmp.sub(1);
    c.s_mul_i32(wave_offset, op == Operand::a ? r.wave_m : r.wave_n, imm(ctx.blocks(op) * ctx.mfma_rows(op)));
    c.v_add_u32(lane_offset, wave_offset, r.lane_row);
    const Reg group_unit{RegFile::v, uint16_t(r.first_fragment)};  // scratch until S2R
    row_swizzle(c, l, t, lane_offset, group_unit);
    c.v_lshlrev_b32(lane_offset, imm(log2_exact(l.tile_row_bytes)), lane_offset);
    c.v_lshlrev_b32(group_unit, imm(log2_exact(ctx.geo.lane_elements * l.element_bits / 128)), r.lane_kgroup);
    c.v_xor_b32(t, t, group_unit);
    c.v_lshlrev_b32(t, imm(4), t);
    c.v_add_u32(lane_offset, lane_offset, t);
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
  advance(r.ptr_a, sh.stride(ctx.schedule.layout, Operand::a) * ctx.geo.of(Operand::a).element_bits / 8);
  advance(r.ptr_b, sh.stride(ctx.schedule.layout, Operand::b) * ctx.geo.of(Operand::b).element_bits / 8);
  advance(r.ptr_c, sh.c_stride() * element_bytes(*sh.out));
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
  workgroup_tile(ctx);
  c.s_mov_b32(r.k_base, imm(0));
  c.v_mov_b32(r.out_of_range, imm(kOutOfRange));
  c.v_mov_b32(r.no_column, imm(kNoColumn));
  c.s_waitcnt(-1, 0);
  if (sh.batch > 1) batch_pointers(ctx);
  buffer_descriptor(c, r.desc_a, r.ptr_a, operand_extent_bytes(ctx, Operand::a));
  buffer_descriptor(c, r.desc_b, r.ptr_b, operand_extent_bytes(ctx, Operand::b));
  buffer_descriptor(c, r.desc_c, r.ptr_c, extent_bytes(sh.m, sh.c_ld(), sh.n, 8 * element_bytes(*sh.out)));
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
    else if (ctx.geo.of(op).k_major)
      g2s_k_major_addresses(ctx, op);
    else
      g2s_swizzled_row_addresses(ctx, op);
    lds_lane_addresses(ctx, op);
  }
  c.comment("entry: zero accumulators");
  for (int i = 0; i < r.agprs; ++i) c.v_accvgpr_write_b32(a(i), imm(0));
}

}  // namespace cdna4::codegen
