#include "codegen/gemm/register_plan.hpp"

#include <algorithm>
#include <bit>
#include <vector>

#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "common/limits.hpp"

namespace cdna4::codegen {

using isa::Reg;
using isa::RegFile;

namespace {
constexpr int kMaxVgprs = gfx950::kMaxVgprs, kMaxAgprs = gfx950::kMaxAgprs, kMaxUnified = gfx950::kRegistersPerLane,
              kMaxSgprs = gfx950::kAddressableSgprs;
int round_up(int v, int m) { return (v + m - 1) / m * m; }
}  // namespace

// `count` more SGPRs (4-aligned when 4 or more, for descriptors); their first.
static uint16_t reserve_sgprs(RegisterPlan& p, const Schedule& s, int count, const char* what) {
  const int base = count >= 4 ? round_up(p.sgprs, 4) : p.sgprs;
  p.sgprs = base + count;
  if (p.sgprs > kMaxSgprs)
    throw Error(fmt::format("schedule {}: a pipeline of depth {} with {} needs {} SGPRs, gfx950 has {}", s.name,
                            depth(s), what, p.sgprs, kMaxSgprs));
  return uint16_t(base);
}

GemmGeometry GemmGeometry::of(const Schedule& s) {
  const MfmaShape m = mfma_shape(s.mfma);
  GemmGeometry g{};
  g.waves = s.waves;
  g.wave_grid_m = s.wave_grid_m;
  g.wave_grid_n = s.wave_grid_n;
  g.wave_m = s.tile_m / s.wave_grid_m;
  g.wave_n = s.tile_n / s.wave_grid_n;
  g.mfma_m = m.m;
  g.mfma_n = m.n;
  g.mfma_k = m.k;
  g.mfma_regs = m.m * m.n / 64;
  g.kpacks = cdna4::kpacks(s);
  g.blocks_m = g.wave_m / m.m;
  g.blocks_n = g.wave_n / m.n;
  g.parts_a = g2s_parts(s, Operand::a);
  g.parts_b = g2s_parts(s, Operand::b);
  g.lds_buffers = s.lds_buffers;
  g.lane_elements = m.k / (64 / m.m);
  for (Operand op : {Operand::a, Operand::b}) {
    const int bits = cdna4::element_bits(operand_type(s, op));
    const bool rows = lds_row_major(s, op);
    const bool kmajor = k_major(s.layout, op);
    const int tile_row_bytes = s.tile_k * bits / 8;
    g.layout[int(op)] = {bits, fragment_bytes(s, op) / 4, rows ? 0 : fragment_chunks(s, op), rows ? 0 : 128 / bits,
                         rows, m.k * bits / 8, kmajor, !rows && !kmajor, tile_row_bytes,
                         std::max(1, 256 / tile_row_bytes), std::min(tile_row_bytes / 16, 16) - 1};
    GemmGeometry::OperandLayout& l = g.layout[int(op)];
    if (l.swizzled_rows)
      l.row_swizzle = pick_row_swizzle(l.tile_row_bytes, l.swizzle_rows, l.swizzle_mask, op == Operand::a ? m.m : m.n,
                                       std::countr_zero(unsigned(std::max(1, g.lane_elements * bits / 128))));
  }
  for (Operand op : {Operand::a, Operand::b}) {
    GemmGeometry::OperandLayout& l = g.layout[int(op)];
    if (!l.k_major) continue;
    // Rows of k that one half-wave's transposing read reaches and that share a
    // 256-byte bank row get distinct unit ranges (entry.cpp, "K-major rows").
    const int bytes = l.element_bits / 8, rows16 = (op == Operand::a ? m.m : m.n) / 16;
    l.part_rows = s.waves * 1024 / (s.tile_k * bytes);
    l.k_row_bytes = l.part_rows * bytes;
    const int units = l.k_row_bytes / 16, bank_row_bits = std::countr_zero(unsigned(std::max(1, 256 / l.k_row_bytes)));
    const int width = bytes * rows16, tile_row_bits = std::countr_zero(unsigned(64 / l.element_bits));
    l.first_swizzle_unit_bit = std::countr_zero(unsigned(width));
    std::vector<int> varying;
    for (int bit = bank_row_bits; bit < tile_row_bits; ++bit) varying.push_back(bit);
    if (rows16 == 1) varying.push_back(std::countr_zero(unsigned(g.lane_elements)));
    for (int bit : varying)
      if ((width << (l.k_swizzle_count + 1)) <= units && l.k_swizzle_count < 4) l.k_swizzle_bits[l.k_swizzle_count++] = bit;
  }
  g.register_versions = 1;
  for (size_t i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].kind == OpKind::s2r)
      g.register_versions = std::max(g.register_versions, s2r_register_versions(s, int(i)));
  return g;
}

Reg RegisterPlan::lds_addr(Operand op, int slot, int lds_buffers) const {
  return {RegFile::v, uint16_t(first_lds_addr + int(op) * lds_buffers + slot)};
}

Reg RegisterPlan::g2s_addr(Operand op, int part, const GemmGeometry& g) const {
  return {RegFile::v, uint16_t(first_g2s_addr + (op == Operand::a ? part : g.parts_a + part))};
}

Reg RegisterPlan::g2s_kcol(Operand op, int part, const GemmGeometry& g) const {
  return {RegFile::v, uint16_t(first_g2s_kcol + (op == Operand::a ? part : g.parts_a + part))};
}

Reg RegisterPlan::fragment(const GemmGeometry& g, int version, Operand op, int kpack, int block) const {
  const int a_regs = g.fragment_regs(Operand::a) * g.blocks_m;
  const int per_kpack = a_regs + g.fragment_regs(Operand::b) * g.blocks_n;
  const int within = op == Operand::a ? g.fragment_regs(op) * block : a_regs + g.fragment_regs(op) * block;
  return {RegFile::v, uint16_t(first_fragment + (version * g.kpacks + kpack) * per_kpack + within),
          uint16_t(g.fragment_regs(op))};
}

Reg RegisterPlan::accumulator(const GemmGeometry& g, int block_m, int block_n) const {
  return {RegFile::a, uint16_t((block_m * g.blocks_n + block_n) * g.mfma_regs), uint16_t(g.mfma_regs)};
}

RegisterPlan RegisterPlan::make(const Schedule& s, const GemmGeometry& g, bool batched) {
  RegisterPlan p;
  p.stage_regs = g.equal_widths() && !g.of(Operand::a).k_major && !g.of(Operand::b).k_major ? 2 : 3;
  p.sgprs = p.stage_k_bytes(depth(s) - 1, Operand::b).index + 1;
  if (p.sgprs > kMaxSgprs)
    throw Error(fmt::format("schedule {}: a pipeline of depth {} needs {} SGPRs, gfx950 has {}", s.name, depth(s),
                            p.sgprs, kMaxSgprs));
  const int parts = g.parts_a + g.parts_b;
  p.first_g2s_addr = p.first_lds_addr + 2 * g.lds_buffers;
  p.first_g2s_kcol = p.first_g2s_addr + parts;
  p.first_fragment = round_up(p.first_g2s_kcol + parts, 2);  // 64-bit reads write even register pairs
  const int fragment_vgprs = g.register_versions * g.kpacks *
                             (g.fragment_regs(Operand::a) * g.blocks_m + g.fragment_regs(Operand::b) * g.blocks_n);
  // emit_store_c reuses the fragment registers: 9 + 4 per column block + 5.
  const int store_scratch = 14 + 4 * g.blocks_n;
  p.vgprs = p.first_fragment + std::max(fragment_vgprs, store_scratch);
  if (s.scaled) {
    const uint16_t base = reserve_sgprs(p, s, 14, "scales");
    p.scale_desc_a = {RegFile::s, base, 4};
    p.scale_desc_b = {RegFile::s, uint16_t(base + 4), 4};
    p.scale_ptr_a = {RegFile::s, uint16_t(base + 8), 2};
    p.scale_ptr_b = {RegFile::s, uint16_t(base + 10), 2};
    p.scale_block_a = {RegFile::s, uint16_t(base + 12)};
    p.scale_block_b = {RegFile::s, uint16_t(base + 13)};
    p.first_scale = p.vgprs;
    p.vgprs += 3 + 2 * g.kpacks * (g.blocks_m + g.blocks_n);
  }
  if (s.epilogue) {
    const uint16_t base = reserve_sgprs(p, s, 14, "a fused epilogue");
    p.desc_c_in = {RegFile::s, base, 4};
    p.desc_bias = {RegFile::s, uint16_t(base + 4), 4};
    p.ptr_c_in = {RegFile::s, uint16_t(base + 8), 2};
    p.ptr_bias = {RegFile::s, uint16_t(base + 10), 2};
    p.alpha = {RegFile::s, uint16_t(base + 12)};
    p.beta = {RegFile::s, uint16_t(base + 13)};
  }
  if (batched) p.batch_index = {RegFile::s, reserve_sgprs(p, s, 1, "a batch")};
  p.agprs = g.blocks_m * g.blocks_n * g.mfma_regs;
  if (p.vgprs > kMaxVgprs)
    throw Error(fmt::format("schedule {}: the wave tile {}x{} needs {} VGPRs ({} for {} S2R register version(s) of "
                            "A/B fragments), gfx950 has {}",
                            s.name, g.wave_m, g.wave_n, p.vgprs, fragment_vgprs, g.register_versions, kMaxVgprs));
  if (p.agprs > kMaxAgprs)
    throw Error(fmt::format("schedule {}: the wave tile {}x{} needs {} accumulator registers, gfx950 has {} AGPRs",
                            s.name, g.wave_m, g.wave_n, p.agprs, kMaxAgprs));
  if (round_up(p.vgprs, gfx950::kAccumOffsetGranule) + p.agprs > kMaxUnified)
    throw Error(fmt::format("schedule {}: {} VGPRs + {} AGPRs exceed the {} registers per lane", s.name, p.vgprs,
                            p.agprs, kMaxUnified));
  // A workgroup's waves share the SIMDs' register files: all must fit at once.
  const int waves_per_simd = (s.waves + gfx950::kSimdsPerCu - 1) / gfx950::kSimdsPerCu;
  const int per_wave = round_up(round_up(p.vgprs, gfx950::kAccumOffsetGranule) + p.agprs, gfx950::kRegisterGranule);
  if (waves_per_simd * per_wave > kMaxUnified)
    throw Error(fmt::format("schedule {}: {} waves put {} on each SIMD, and {} registers per wave ({} VGPRs + {} "
                            "AGPRs) for each exceed the SIMD's {} per lane: the workgroup could never launch",
                            s.name, s.waves, waves_per_simd, per_wave, p.vgprs, p.agprs, kMaxUnified));
  return p;
}

}  // namespace cdna4::codegen
