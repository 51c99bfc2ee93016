#pragma once
// Everything the GEMM lowering passes share: the schedule, the shape, the
// register plan and the code being built.
#include <cstdint>
#include <optional>
#include <string>

#include "cdna4/gemm.hpp"
#include "cdna4/schedule.hpp"
#include "codegen/gemm/register_plan.hpp"
#include "codegen/isa/code.hpp"

namespace cdna4::codegen {

// A lane offset that no buffer access reaches: loads return 0, stores drop.
constexpr uint32_t kOutOfRange = 0x80000000u;
constexpr uint32_t kNoColumn = 0x7fffffffu;  // k column of a lane whose row is outside the matrix

struct GemmContext {
  const Schedule& schedule;
  const GemmShape& shape;
  GemmGeometry geo;
  RegisterPlan regs;
  isa::Code code;
  int k_tiles = 0;  // ceil(K / tile_k)
  int mfma_stage = 0;  // scaled schedules: the one stage of their MFMAs (main_loop.cpp)
  int g2s_turn = 0; // which address temporary the next G2S uses
  // Filled by emit_main_loop for the summary.
  int loop_instructions = 0, loop_iterations = 0;

  GemmContext(const Schedule& s, const GemmShape& sh)
      : schedule(s), shape(sh), geo(GemmGeometry::of(s)), regs(RegisterPlan::make(s, geo, sh.batch > 1)) {
    k_tiles = int((sh.k + s.tile_k - 1) / s.tile_k);
    code.lines.reserve(4096);  // a 256x256 kernel is 1,000-2,500 lines: no regrowth moves
  }

  int64_t rows(Operand op) const { return op == Operand::a ? shape.m : shape.n; }
  int64_t ld_bytes(Operand op) const { return shape.ld(schedule.layout, op) * geo.of(op).element_bits / 8; }
  int tile_rows(Operand op) const { return op == Operand::a ? schedule.tile_m : schedule.tile_n; }
  // Lanes need masking when a tile can reach past the matrix along rows or K.
  bool needs_mask(Operand op) const {
    return rows(op) % tile_rows(op) != 0 || shape.k % schedule.tile_k != 0;
  }
  isa::Reg desc(Operand op) const { return op == Operand::a ? regs.desc_a : regs.desc_b; }
  const std::optional<Epilogue>& epilogue() const { return schedule.epilogue; }
  // Kernel arguments: a, b, c (D), [scale_a, scale_b], [C input], [bias], alpha, [beta].
  int kernarg_after_pointers() const { return schedule.scaled ? 40 : 24; }
  int kernarg_c_in() const { return kernarg_after_pointers(); }
  int kernarg_bias() const { return kernarg_c_in() + (epilogue()->c ? 8 : 0); }
  int kernarg_alpha() const { return kernarg_bias() + (epilogue()->bias != BiasDim::none ? 8 : 0); }
  int kernarg_beta() const { return kernarg_alpha() + 4; }
  int blocks(Operand op) const { return op == Operand::a ? geo.blocks_m : geo.blocks_n; }
  int mfma_rows(Operand op) const { return op == Operand::a ? geo.mfma_m : geo.mfma_n; }
};

// Passes of the lowering, one file each.
void emit_entry(GemmContext& ctx);                     // ids, descriptors, lane addresses, zero accumulators
void emit_main_loop(GemmContext& ctx, int group, const std::string& label_prefix);  // the schedule
void emit_store_c(GemmContext& ctx);                   // bounds-checked C store

// One schedule op for the tile in LDS slot `slot`, S2R register version
// `version` and (MFMAs of scaled schedules) scale register version `scale_version`.
void emit_op(GemmContext& ctx, const ScheduleOp& op, int slot, int version, int scale_version = 0);
// MX scales of kpack `kp` of the tile `tile_offset` tiles after this iteration's
// k_base into scale registers `version` (buffer_load_ubyte); returns the loads issued.
int emit_scale_loads(GemmContext& ctx, int tile_offset, int version, int kp);

}  // namespace cdna4::codegen
