// C store: each lane's accumulator elements (D[i][j] with j = lane % mfma_n and
// i from lane / mfma_n and the register) become fp32, or bf16 / f16 rounded to
// nearest even; with a fused epilogue each first becomes act(alpha * acc + beta *
// C[i][j] + bias) in the order docs/codegen.md states. Where D's rows are whole
// 16-byte units (N, ldc and the batch stride), each MFMA row block of a wave
// goes through the wave's own LDS rows and leaves as 16-byte row pieces
// (buffer_store_dwordx4); otherwise element by element. Rows and columns
// outside M x N get an out-of-range offset: the buffer drops those stores.
#include <bit>

#include "codegen/gemm/context.hpp"
#include "common/activations.hpp"

namespace cdna4::codegen {

using namespace isa;

namespace {

constexpr uint32_t kHalfOutOfRange = 0x40000000u;  // row or column part of an out-of-range offset


// Row of accumulator register r inside an MFMA tile, for lanes with lane / mfma_n == 0.
int register_row(const GemmGeometry& g, int r) { return g.mfma_regs == 4 ? r : 8 * (r / 4) + r % 4; }

int log2_bytes(int bytes) { return std::countr_zero(unsigned(bytes)); }

// x (fp32 in `x`) -> act(x): the row's steps (common/activations.hpp), `t` and `u` as scratch.
void emit_activation(Code& c, Activation act, Reg x, Reg t, Reg u) {
  const activations::Row* row = activations::find(act);
  if (!row) throw Error("unknown activation");
  auto reg = [&](activations::Var var) { return var == activations::x ? x : var == activations::t ? t : u; };
  auto src = [&](const activations::Src& s) -> Arg {
    if (s.constant) return Imm{s.bits, s.bits != 0};  // fp32 bit patterns in hex
    return reg(s.var);
  };
  for (const activations::Step& s : row->steps) {
    const Reg d = reg(s.d);
    switch (s.op) {
      case activations::Op::mul: c.v_mul_f32(d, src(s.a), src(s.b)); break;
      case activations::Op::add: c.v_add_f32(d, src(s.a), src(s.b)); break;
      case activations::Op::fma: c.v_fma_f32(d, src(s.a), src(s.b), src(s.c)); break;
      case activations::Op::max: c.v_max_f32(d, src(s.a), src(s.b)); break;
      case activations::Op::exp2: c.v_exp_f32(d, src(s.a)); break;
      case activations::Op::rcp: c.v_rcp_f32(d, src(s.a)); break;
    }
  }
}

// A loaded element of `type` in `x` (f32 bits, bf16 or f16 in the low half) as fp32.
void widen(Code& c, DataType type, Reg x) {
  if (type == DataType::bf16) c.v_lshlrev_b32(x, imm(16), x);
  if (type == DataType::f16) c.v_cvt_f32_f16(x, x);
}

void load_element(Code& c, DataType type, Reg d, Reg addr, Reg desc) {
  if (type == DataType::f32)
    c.buffer_load_dword(d, addr, desc, imm(0), 0);
  else
    c.buffer_load_ushort(d, addr, desc, imm(0), 0);
}

// The staged store's LDS rows: a wave's MFMA row block as 32-bit words (bf16 /
// f16 in their half), rows `row_bytes` apart, unpadded: the 16 lanes a
// ds_write_b32 serves a clock write 16 consecutive words of one row, and an f32
// D's ds_read_b128s read contiguous 16-byte units, so every lane group of either
// (common/lds_rules.hpp) meets distinct banks. A 16-bit D's unit is 32 bytes of
// words, read as two halves: lanes 32 bytes apart would meet each other's banks
// in a ds_read_b128 group, so where bit 3 of the unit's index in the region is
// set its halves sit swapped, and a group's lanes read 8 units of one half and 8
// of the other. That bit is the lane's own on a read and a constant of the
// register and column block on a write, given 4 or more units a row.
struct Staging {
  bool on = false;
  int row_bytes = 0, region_bytes = 0;
  int values_per_unit = 0;  // output elements in 16 bytes
  int units_per_row = 0;    // 16-byte units of D in a wave's row
  int rows_per_read = 0;    // rows the 64 lanes cover with one unit each
  bool swap_halves = false;
  // Whether the unit `unit` of row `row` holds its halves swapped.
  bool swapped(int row, int unit) const { return swap_halves && ((row * units_per_row + unit) >> 3 & 1); }
};

Staging staging_of(const GemmContext& ctx) {
  const GemmGeometry& g = ctx.geo;
  const GemmShape& sh = ctx.shape;
  const int elem = element_bytes(*sh.out);
  Staging st;
  st.values_per_unit = 16 / elem;
  st.units_per_row = g.wave_n / st.values_per_unit;
  st.row_bytes = g.wave_n * 4;
  st.region_bytes = g.mfma_m * st.row_bytes;
  const bool whole_units = sh.n * elem % 16 == 0 && sh.c_ld() * elem % 16 == 0 &&
                           (sh.batch == 1 || sh.c_stride() * elem % 16 == 0);
  const bool fits = ctx.schedule.waves * st.region_bytes <= lds_bytes(ctx.schedule) && st.units_per_row > 0 &&
                    64 % st.units_per_row == 0 && g.mfma_m * st.units_per_row % 64 == 0;
  st.on = whole_units && fits;
  if (st.on) st.rows_per_read = 64 / st.units_per_row;
  st.swap_halves = st.on && elem == 2 && st.units_per_row >= 4;
  return st;
}

}  // namespace

void emit_store_c(GemmContext& ctx) {
  Code& c = ctx.code;
  const RegisterPlan& r = ctx.regs;
  const GemmGeometry& g = ctx.geo;
  const GemmShape& sh = ctx.shape;
  const std::optional<Epilogue>& epi = ctx.epilogue();
  const bool f32 = sh.out == OutType::f32;
  const int elem = element_bytes(*sh.out);
  const int64_t ldc_bytes = sh.c_ld() * elem;
  const bool mask_rows = sh.m % ctx.schedule.tile_m != 0, mask_cols = sh.n % ctx.schedule.tile_n != 0;
  const bool has_c = epi && epi->c, bias_m = epi && epi->bias == BiasDim::m, bias_n = epi && epi->bias == BiasDim::n;
  const int c_elem = has_c ? element_bits(*epi->c) / 8 : 0, bias_elem = epi ? element_bits(epi->bias_type) / 8 : 0;
  const int64_t ldc_in_bytes = sh.c_in_ld() * c_elem;

  // Scratch in the fragment registers, dead once the last MFMA has issued.
  const int f = r.first_fragment;
  const Reg row0 = v(f), col0 = v(f + 1), row0_bytes = v(f + 2), row_off = v(f + 3), addr = v(f + 4),
            value = v(f + 5), rounded = v(f + 6), quiet = v(f + 7), half_out_of_range = v(f + 8);
  const int nb_count = g.blocks_n;
  auto col_bytes = [&](int nb) { return v(f + 9 + nb); };               // D's column offset
  auto col_c = [&](int nb) { return v(f + 9 + nb_count + nb); };        // C's, when its element size differs
  auto bias_col = [&](int nb) { return v(f + 9 + 2 * nb_count + nb); }; // per-column bias (fp32)
  auto c_value = [&](int nb) { return v(f + 9 + 3 * nb_count + nb); };  // C of this row, per column block
  const Reg row_off_c = v(f + 9 + 4 * nb_count), bias_row = v(f + 10 + 4 * nb_count), t = v(f + 11 + 4 * nb_count),
            u = v(f + 12 + 4 * nb_count), row0_c_bytes = v(f + 13 + 4 * nb_count);
  const Reg s_row = r.tmp.sub(0), s_col = r.tmp.sub(1), s_ldc = r.tmp.sub(2), s_round = r.tmp.sub(3);
  // The staged store's lane registers.
  const Staging staged = staging_of(ctx);
  const int sv = f + 14 + 4 * nb_count;
  const Reg lds_write = v(sv), lds_read = v(sv + 1), unit_row = v(sv + 2), unit_col = v(sv + 3), unit_addr = v(sv + 4);
  const int sw = (sv + 5 + 3) / 4 * 4;  // register tuples start on even registers
  const Reg words{RegFile::v, uint16_t(sw), 8}, packed{RegFile::v, uint16_t(sw + 8), 4};
  const bool separate_c_cols = has_c && c_elem != elem;
  auto c_col = [&](int nb) { return separate_c_cols ? col_c(nb) : col_bytes(nb); };

  c.comment(epi ? "store C: fused epilogue" : "store C");
  c.s_mul_i32(s_row, r.wave_m, imm(g.wave_m));
  c.s_add_u32(s_row, s_row, r.tile_m0);
  c.v_lshlrev_b32(row0, imm(2), r.lane_kgroup);
  c.v_add_u32(row0, s_row, row0);
  c.s_mul_i32(s_col, r.wave_n, imm(g.wave_n));
  c.s_add_u32(s_col, s_col, r.tile_n0);
  c.v_add_u32(col0, s_col, r.lane_row);
  c.s_mov_b32(s_ldc, imm(ldc_bytes));
  c.v_mul_lo_u32(row0_bytes, row0, s_ldc);
  if (sh.out == OutType::bf16) c.s_mov_b32(s_round, imm(0x7fff));
  c.v_mov_b32(half_out_of_range, imm(kHalfOutOfRange));
  // Byte offset `d` of column index `col` for elements of `bytes`; out of range past N.
  auto column_offset = [&](Reg d, Reg col, int bytes) {
    c.v_lshlrev_b32(d, imm(log2_bytes(bytes)), col);
    if (mask_cols) c.v_cndmask_b32(d, half_out_of_range, d);  // vcc: col < N
  };
  for (int nb = 0; nb < g.blocks_n; ++nb) {
    const Reg col = addr;
    c.v_add_u32(col, imm(nb * g.mfma_n), col0);
    if (mask_cols) c.v_cmp_gt_i32(imm(sh.n), col);
    column_offset(col_bytes(nb), col, elem);
    if (separate_c_cols) column_offset(col_c(nb), col, c_elem);
    if (bias_n) {  // the column's bias, loaded once
      column_offset(t, col, bias_elem);
      load_element(c, epi->bias_type, bias_col(nb), t, r.desc_bias);
    }
  }
  if (bias_n) {
    c.s_waitcnt(0, -1);
    for (int nb = 0; nb < g.blocks_n; ++nb) widen(c, epi->bias_type, bias_col(nb));
  }
  if (has_c) {
    c.s_mov_b32(s_ldc, imm(ldc_in_bytes));
    c.v_mul_lo_u32(row0_c_bytes, row0, s_ldc);
  }
  if (staged.on) {
    // Every wave is past its last LDS operand read and LDS-DMA write before any
    // wave writes its rows over the operand slots.
    c.s_waitcnt(0, 0);
    c.s_barrier();
    const int log2_upr = std::countr_zero(unsigned(staged.units_per_row));
    // Writes: the lane's row (4 x lane group) and column (lane % mfma_n) word.
    c.s_mul_i32(s_ldc, r.wave, imm(staged.region_bytes));
    c.s_mov_b32(s_round, imm(4 * staged.row_bytes));
    c.v_mul_lo_u32(lds_write, s_round, r.lane_kgroup);
    c.v_lshlrev_b32(unit_addr, imm(2), r.lane_row);
    c.v_add3_u32(lds_write, s_ldc, lds_write, unit_addr);
    // Reads: lane l takes unit l % units_per_row of row l / units_per_row.
    c.v_lshrrev_b32(unit_row, imm(log2_upr), r.lane);
    c.v_and_b32(unit_col, imm(staged.units_per_row - 1), r.lane);
    c.s_mov_b32(s_round, imm(staged.row_bytes));
    c.v_mul_lo_u32(lds_read, s_round, unit_row);
    c.v_lshlrev_b32(unit_addr, imm(2 + std::countr_zero(unsigned(staged.values_per_unit))), unit_col);
    c.v_add3_u32(lds_read, s_ldc, lds_read, unit_addr);
    if (staged.swap_halves) {  // the unit's first half: 16 bytes in when bit 3 of the lane (of its unit) is set
      c.v_and_b32(unit_addr, imm(8), r.lane);
      c.v_lshlrev_b32(unit_addr, imm(1), unit_addr);
      c.v_add_u32(lds_read, lds_read, unit_addr);
    }
    // Global: the unit's row (from the wave's first) and column byte offset.
    c.v_add_u32(unit_row, s_row, unit_row);
    c.v_lshlrev_b32(unit_col, imm(std::countr_zero(unsigned(staged.values_per_unit))), unit_col);
    c.v_add_u32(unit_col, s_col, unit_col);
    if (mask_cols) c.v_cmp_gt_i32(imm(sh.n), unit_col);
    c.v_lshlrev_b32(unit_col, imm(log2_bytes(elem)), unit_col);
    if (mask_cols) c.v_cndmask_b32(unit_col, half_out_of_range, unit_col);
    if (sh.out == OutType::bf16) c.s_mov_b32(s_round, imm(0x7fff));
  }
  // Row block mb of every wave through its LDS rows: units_per_row x 16 bytes a
  // row, 64 lanes a unit each per read, rows_per_read rows apart.
  auto flush_staged = [&](int mb) {
    c.s_waitcnt(-1, 0);
    const int reads = g.mfma_m / staged.rows_per_read, words_per_unit = 4 * (4 / elem);
    const Reg selector = s_col;  // VOP3 takes no literal
    if (elem == 2) c.s_mov_b32(selector, imm(sh.out == OutType::bf16 ? 0x07060302 : 0x05040100));
    for (int i = 0; i < reads; ++i) {
      for (int w = 0; w < words_per_unit / 4; ++w) {
        const int offset = i * staged.rows_per_read * staged.row_bytes;
        if (!staged.swap_halves) {
          c.ds_read_b128(words.sub(4 * w, 4), lds_read, offset + 16 * w);
        } else if (w == 0) {
          c.ds_read_b128(words.sub(0, 4), lds_read, offset);
        } else {  // the other half of the 32-byte unit
          c.v_xor_b32(unit_addr, imm(16), lds_read);
          c.ds_read_b128(words.sub(4, 4), unit_addr, offset);
        }
      }
      c.s_waitcnt(-1, 0);
      // bf16 in the upper, f16 in the lower half of each word: two words a dword.
      if (elem == 2)
        for (int d = 0; d < 4; ++d)
          c.v_perm_b32(packed.sub(d), words.sub(2 * d + 1), words.sub(2 * d), selector);
      const int row = mb * g.mfma_m + i * staged.rows_per_read;
      c.v_add_u32(unit_addr, imm(row), unit_row);
      if (mask_rows) c.v_cmp_gt_i32(imm(sh.m), unit_addr);
      c.s_mov_b32(s_ldc, imm(ldc_bytes));
      c.v_mul_lo_u32(unit_addr, unit_addr, s_ldc);
      if (mask_rows) c.v_cndmask_b32(unit_addr, half_out_of_range, unit_addr);
      c.v_add_u32(unit_addr, unit_addr, unit_col);
      c.buffer_store_dwordx4(elem == 2 ? packed : words.sub(0, 4), unit_addr, r.desc_c, imm(0), 0);
    }
  };
  for (int mb = 0; mb < g.blocks_m; ++mb) {
    const Reg lds_write_swapped = unit_addr;  // free until flush_staged
    if (staged.swap_halves) c.v_xor_b32(lds_write_swapped, imm(16), lds_write);
    for (int reg = 0; reg < g.mfma_regs; ++reg) {
      const int row = mb * g.mfma_m + register_row(g, reg);
      if (!staged.on) c.v_add_u32(row_off, imm(row * ldc_bytes), row0_bytes);
      if (has_c) c.v_add_u32(row_off_c, imm(row * ldc_in_bytes), row0_c_bytes);
      if (mask_rows && (!staged.on || has_c || bias_m)) {
        c.v_cmp_gt_i32(imm(sh.m - row), row0);
        if (!staged.on) c.v_cndmask_b32(row_off, half_out_of_range, row_off);
        if (has_c) c.v_cndmask_b32(row_off_c, half_out_of_range, row_off_c);
      }
      if (has_c || bias_m) {  // this row's C elements and bias, then one wait
        for (int nb = 0; has_c && nb < g.blocks_n; ++nb) {
          c.v_add_u32(addr, row_off_c, c_col(nb));
          load_element(c, *epi->c, c_value(nb), addr, r.desc_c_in);
        }
        if (bias_m) {
          c.v_add_u32(t, imm(row), row0);
          c.v_lshlrev_b32(t, imm(log2_bytes(bias_elem)), t);
          if (mask_rows) c.v_cndmask_b32(t, half_out_of_range, t);  // vcc: the row check above
          load_element(c, epi->bias_type, bias_row, t, r.desc_bias);
        }
        c.s_waitcnt(0, -1);
        for (int nb = 0; has_c && nb < g.blocks_n; ++nb) widen(c, *epi->c, c_value(nb));
        if (bias_m) widen(c, epi->bias_type, bias_row);
      }
      for (int nb = 0; nb < g.blocks_n; ++nb) {
        if (!staged.on) c.v_add_u32(addr, row_off, col_bytes(nb));
        c.v_accvgpr_read_b32(value, r.accumulator(g, mb, nb).sub(reg));
        if (epi) {
          c.v_mul_f32(value, r.alpha, value);
          if (has_c) c.v_fma_f32(value, r.beta, c_value(nb), value);
          if (bias_n) c.v_add_f32(value, value, bias_col(nb));
          if (bias_m) c.v_add_f32(value, value, bias_row);
          emit_activation(c, epi->activation, value, t, u);
        }
        const int staged_offset = register_row(g, reg) * staged.row_bytes + nb * g.mfma_n * 4;
        const Reg staged_write =
            staged.swapped(register_row(g, reg), nb * g.mfma_n / staged.values_per_unit) ? lds_write_swapped : lds_write;
        if (f32) {
          if (staged.on) c.ds_write_b32(staged_write, value, staged_offset);
          else c.buffer_store_dword(value, addr, r.desc_c, imm(0), 0);
          continue;
        }
        if (sh.out == OutType::f16) {  // round to nearest even, overflow to infinity, NaN stays NaN
          c.v_cvt_f16_f32(rounded, value);
          if (staged.on) c.ds_write_b32(staged_write, rounded, staged_offset);
          else c.buffer_store_short(rounded, addr, r.desc_c, imm(0), 0);
          continue;
        }
        // bf16 = upper half of (x + 0x7fff + lsb of the upper half); NaN stays a quiet NaN.
        c.v_bfe_u32(rounded, value, imm(16), imm(1));
        c.v_add3_u32(rounded, value, s_round, rounded);
        c.v_cmp_u_f32(value, value);
        c.v_or_b32(quiet, imm(0x400000), value);
        c.v_cndmask_b32(rounded, rounded, quiet);
        if (staged.on) c.ds_write_b32(staged_write, rounded, staged_offset);
        else c.buffer_store_short_d16_hi(rounded, addr, r.desc_c, imm(0), 0);
      }
    }
    if (staged.on) flush_staged(mb);
  }
}

}  // namespace cdna4::codegen
