// C store: each lane writes its accumulator elements (D[i][j] with j = lane %
// mfma_n and i from lane / mfma_n and the register) as fp32, or as bf16 rounded
// to nearest even; elements outside M x N are dropped by the buffer range check.
#include <bit>

#include "codegen/gemm/context.hpp"

namespace cdna4::codegen {

using namespace isa;

namespace {

constexpr uint32_t kHalfOutOfRange = 0x40000000u;  // row or column part of an out-of-range offset

// Row of accumulator register r inside an MFMA tile, for lanes with lane / mfma_n == 0.
int register_row(const GemmGeometry& g, int r) { return g.mfma_regs == 4 ? r : 8 * (r / 4) + r % 4; }

}  // namespace

void emit_store_c(GemmContext& ctx) {
  Code& c = ctx.code;
  const RegisterPlan& r = ctx.regs;
  const GemmGeometry& g = ctx.geo;
  const GemmShape& sh = ctx.shape;
  const bool f32 = sh.out == OutType::f32;
  const int elem = element_bytes(sh.out);
  const int64_t ldc_bytes = sh.c_ld() * elem;
  const bool mask_rows = sh.m % ctx.schedule.tile_m != 0, mask_cols = sh.n % ctx.schedule.tile_n != 0;

  // Scratch in the fragment registers, dead once the last MFMA has issued.
  const int f = r.first_fragment;
  const Reg row0 = v(f), col0 = v(f + 1), row0_bytes = v(f + 2), row_off = v(f + 3), addr = v(f + 4),
            value = v(f + 5), rounded = v(f + 6), quiet = v(f + 7), half_out_of_range = v(f + 8);
  auto col_bytes = [&](int nb) { return v(f + 9 + nb); };
  const Reg s_row = r.tmp.sub(0), s_col = r.tmp.sub(1), s_ldc = r.tmp.sub(2), s_round = r.tmp.sub(3);

  c.comment("store C");
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
  for (int nb = 0; nb < g.blocks_n; ++nb) {
    const Reg cb = col_bytes(nb);
    c.v_add_u32(cb, imm(nb * g.mfma_n), col0);
    if (mask_cols) {
      c.v_cmp_gt_i32(imm(sh.n), cb);
      c.v_lshlrev_b32(cb, imm(std::countr_zero(unsigned(elem))), cb);
      c.v_cndmask_b32(cb, half_out_of_range, cb);
    } else {
      c.v_lshlrev_b32(cb, imm(std::countr_zero(unsigned(elem))), cb);
    }
  }
  for (int mb = 0; mb < g.blocks_m; ++mb)
    for (int reg = 0; reg < g.mfma_regs; ++reg) {
      const int row = mb * g.mfma_m + register_row(g, reg);
      c.v_add_u32(row_off, imm(row * ldc_bytes), row0_bytes);
      if (mask_rows) {
        c.v_cmp_gt_i32(imm(sh.m - row), row0);
        c.v_cndmask_b32(row_off, half_out_of_range, row_off);
      }
      for (int nb = 0; nb < g.blocks_n; ++nb) {
        c.v_add_u32(addr, row_off, col_bytes(nb));
        c.v_accvgpr_read_b32(value, r.accumulator(g, mb, nb).sub(reg));
        if (f32) {
          c.buffer_store_dword(value, addr, r.desc_c, imm(0), 0);
          continue;
        }
        if (sh.out == OutType::f16) {  // round to nearest even, overflow to infinity, NaN stays NaN
          c.v_cvt_f16_f32(rounded, value);
          c.buffer_store_short(rounded, addr, r.desc_c, imm(0), 0);
          continue;
        }
        // bf16 = upper half of (x + 0x7fff + lsb of the upper half); NaN stays a quiet NaN.
        c.v_bfe_u32(rounded, value, imm(16), imm(1));
        c.v_add3_u32(rounded, value, s_round, rounded);
        c.v_cmp_u_f32(value, value);
        c.v_or_b32(quiet, imm(0x400000), value);
        c.v_cndmask_b32(rounded, rounded, quiet);
        c.buffer_store_short_d16_hi(rounded, addr, r.desc_c, imm(0), 0);
      }
    }
}

}  // namespace cdna4::codegen
