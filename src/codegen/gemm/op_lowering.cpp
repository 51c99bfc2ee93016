// One schedule op -> instructions: G2S as LDS-DMA loads, S2R as ds_read_b128
// (ds_read_b64_tr_b16 / _b8 pairs for K-major operands),
// MFMA groups, barriers, priorities.
#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "codegen/gemm/context.hpp"
#include "codegen/schedule/schedule_internal.hpp"
#include "common/mfma_table.hpp"

namespace cdna4::codegen {

using namespace isa;

namespace {

struct Range {
  int begin, end;
};

Range half_range(int blocks, const std::optional<int>& half) {
  if (!half) return {0, blocks};
  return {*half * blocks / 2, (*half + 1) * blocks / 2};
}

Range kpack_range(const GemmContext& ctx, const std::optional<int>& kpack) {
  if (!kpack) return {0, ctx.geo.kpacks};
  return {*kpack, *kpack + 1};
}

void emit_g2s(GemmContext& ctx, const ScheduleOp& op, int slot) {
  Code& c = ctx.code;
  const RegisterPlan& r = ctx.regs;
  // Two address registers in turn, so consecutive loads do not wait on each other's VALU.
  const Reg addr = r.addr_tmp.sub(ctx.g2s_turn ^= 1);
  c.v_add_u32(addr, r.stage_k_bytes(op.stage, op.operand), r.g2s_addr(op.operand, op.part, ctx.geo));
  if (ctx.needs_mask(op.operand)) {
    c.v_cmp_gt_i32(r.stage_k_left(op.stage), r.g2s_kcol(op.operand, op.part, ctx.geo));
    c.v_cndmask_b32(addr, r.out_of_range, addr);
  }
  c.s_add_u32(m0, r.wave_chunk, imm(lds_offset(ctx.schedule, op.operand, op.part, slot)));
  c.buffer_load_dwordx4_lds(addr, ctx.desc(op.operand), imm(0), 0);
}

void emit_s2r(GemmContext& ctx, const ScheduleOp& op, int slot, int version) {
  const Range blocks = half_range(ctx.blocks(op.operand), op.operand == Operand::a ? op.m_half : op.n_half);
  const Range kps = kpack_range(ctx, op.kpack);
  const Reg base = ctx.regs.lds_addr(op.operand, slot, ctx.schedule.lds_buffers);
  const GemmGeometry::OperandLayout& l = ctx.geo.of(op.operand);
  if (l.row_major) {  // [kpack][row][row_bytes]: three 8-byte reads of the lane's 24 bytes
    const int rows = ctx.tile_rows(op.operand), block_rows = ctx.mfma_rows(op.operand);
    for (int kp = kps.begin; kp < kps.end; ++kp)
      for (int j = blocks.begin; j < blocks.end; ++j)
        for (int h = 0; h < l.fragment_regs / 2; ++h)
          ctx.code.ds_read_b64(ctx.regs.fragment(ctx.geo, version, op.operand, kp, j).sub(2 * h, 2), base,
                               (kp * rows + j * block_rows) * l.row_bytes + 8 * h);
    return;
  }
  const int chunks = l.chunks;
  Code& c = ctx.code;
  if (l.k_major) {  // entry.cpp "K-major rows": the block by XOR of its first unit (and a part offset), k by offset
    const int rows = ctx.mfma_rows(op.operand), n = 64 / l.element_bits, bytes = l.element_bits / 8;
    for (int j = blocks.begin; j < blocks.end; ++j) {
      const int first = j * rows, unit = first % l.part_rows * bytes / 16;
      const int part_offset = first / l.part_rows * ctx.schedule.waves * 1024;
      Reg addr = base;
      if (unit) {
        addr = ctx.regs.addr_tmp.sub(ctx.g2s_turn ^= 1);
        c.v_xor_b32(addr, imm(16 * unit), base);
      }
      for (int kp = kps.begin; kp < kps.end; ++kp)
        for (int h = 0; h < chunks; ++h)
          for (int half = 0; half < 2; ++half) {
            const int k = kp * ctx.geo.mfma_k + h * l.chunk_elements + half * n;
            c.ds_read_b64_tr(l.element_bits, ctx.regs.fragment(ctx.geo, version, op.operand, kp, j).sub(4 * h + 2 * half, 2),
                             addr, part_offset + k * l.k_row_bytes);
          }
    }
    return;
  }
  // entry.cpp "Swizzled rows": the kpack's and piece's unit by XOR, the block by offset
  for (int kp = kps.begin; kp < kps.end; ++kp)
    for (int h = 0; h < chunks; ++h) {
      const int unit = (kp * ctx.geo.mfma_k + h * l.chunk_elements) / l.chunk_elements;
      Reg addr = base;
      if (unit) {
        addr = ctx.regs.addr_tmp.sub(ctx.g2s_turn ^= 1);
        c.v_xor_b32(addr, imm(16 * unit), base);
      }
      for (int j = blocks.begin; j < blocks.end; ++j)
        c.ds_read_b128(ctx.regs.fragment(ctx.geo, version, op.operand, kp, j).sub(4 * h, 4), addr,
                       j * ctx.mfma_rows(op.operand) * l.tile_row_bytes);
    }
}

// f8f6f4 MFMAs: cbsz / blgp name A's and B's format (fp8, code 0, is the default).
MfmaModifiers mfma_formats(const Schedule& s) {
  if (!gfx950::find_mfma(mfma_shape(s.mfma).mnemonic)->f8f6f4) return {};
  MfmaModifiers m;
  m.cbsz = uint8_t(gfx950::element_info(*detail::mfma_element(s.type_a)).f8f6f4_format);
  m.blgp = uint8_t(gfx950::element_info(*detail::mfma_element(s.type_b)).f8f6f4_format);
  return m;
}

}  // namespace

// MX scales of one kpack of tile `tile` (relative to this iteration: the tile
// k_base / tile_k + offset) into scale registers `version`: lane l of row (column) block j
// needs the byte of its row (column) and of the 32-element K block its lane
// group holds, one buffer_load_ubyte each. Lanes past K load nothing (zero);
// rows and columns past M and N feed only dropped outputs.
int emit_scale_loads(GemmContext& ctx, int tile_offset, int version, int kp) {
  Code& c = ctx.code;
  const RegisterPlan& r = ctx.regs;
  const GemmGeometry& g = ctx.geo;
  const int64_t k_blocks = ctx.shape.k / 32;
  const bool mask_k = ctx.shape.k % ctx.schedule.tile_k != 0;
  c.s_add_i32(r.scale_block_a, r.k_base, imm(tile_offset * ctx.schedule.tile_k + kp * g.mfma_k));
  c.s_lshr_b32(r.scale_block_a, r.scale_block_a, imm(5));
  c.s_mul_i32(r.scale_block_b, r.scale_block_a, imm(ctx.shape.n));
  for (Operand operand : {Operand::a, Operand::b}) {
    for (int j = 0; j < ctx.blocks(operand); ++j) {
      const Reg value = r.scale_value(g, operand, version, kp, j), addr = r.scale_addr();
      const int64_t step = operand == Operand::a ? int64_t(j) * g.mfma_m * k_blocks : int64_t(j) * g.mfma_n;
      c.v_add_u32(addr, operand == Operand::a ? r.scale_block_a : r.scale_block_b, r.scale_base(operand));
      if (step) c.v_add_u32(addr, imm(step), addr);
      if (mask_k) {  // the lane's K block: the kpack's first + its lane group
        c.v_add_u32(value, r.scale_block_a, r.lane_kgroup);
        c.v_cmp_gt_i32(imm(k_blocks), value);
        c.v_cndmask_b32(addr, r.out_of_range, addr);
      }
      c.buffer_load_ubyte(value, addr, operand == Operand::a ? r.scale_desc_a : r.scale_desc_b, imm(0), 0);
    }
  }
  return g.blocks_m + g.blocks_n;
}

namespace {

void emit_mfma(GemmContext& ctx, const ScheduleOp& op, int version, int scale_version) {
  const Range ms = half_range(ctx.geo.blocks_m, op.m_half), ns = half_range(ctx.geo.blocks_n, op.n_half);
  const Range kps = kpack_range(ctx, op.kpack);
  const char* mnemonic = mfma_shape(ctx.schedule.mfma).mnemonic;
  const MfmaModifiers formats = mfma_formats(ctx.schedule);
  for (int kp = kps.begin; kp < kps.end; ++kp) {
    for (int mb = ms.begin; mb < ms.end; ++mb)
      for (int nb = ns.begin; nb < ns.end; ++nb) {
        const Reg acc = ctx.regs.accumulator(ctx.geo, mb, nb);
        const Reg x = ctx.regs.fragment(ctx.geo, version, Operand::a, kp, mb);
        const Reg y = ctx.regs.fragment(ctx.geo, version, Operand::b, kp, nb);
        if (ctx.schedule.scaled)
          ctx.code.v_mfma_scale(mnemonic, acc, x, y, acc, ctx.regs.scale_value(ctx.geo, Operand::a, scale_version, kp, mb),
                                ctx.regs.scale_value(ctx.geo, Operand::b, scale_version, kp, nb), formats);
        else
          ctx.code.v_mfma(mnemonic, acc, x, y, acc, formats);
      }
  }
}

}  // namespace

void emit_op(GemmContext& ctx, const ScheduleOp& op, int slot, int version, int scale_version) {
  switch (op.kind) {
    case OpKind::g2s: emit_g2s(ctx, op, slot); break;
    case OpKind::s2r: emit_s2r(ctx, op, slot, version); break;
    case OpKind::mfma: emit_mfma(ctx, op, version, scale_version); break;
    case OpKind::barrier: ctx.code.s_barrier(); break;
    case OpKind::setprio: ctx.code.s_setprio(op.prio); break;
    case OpKind::wait: break;  // its counts are emitted before every op
  }
}

}  // namespace cdna4::codegen
