// Geometry shared by the verifier and the code generator; schedules/README.md
// ("Geometry") is the specification of every function here.
#include "codegen/schedule/geometry.hpp"

#include <algorithm>

#include "codegen/schedule/op_list.hpp"
#include "common/limits.hpp"

namespace cdna4 {

int depth(const Schedule& s) { return detail::pipeline_depth(s.ops, s.num_stages); }

int kpacks(const Schedule& s) { return s.tile_k / mfma_shape(s.mfma).k; }

int fragment_bytes(const Schedule& s, Operand operand) {
  const MfmaShape m = mfma_shape(s.mfma);
  const int lane_elements = m.k / (64 / (operand == Operand::a ? m.m : m.n));
  return lane_elements * element_bits(operand_type(s, operand)) / 8;
}

int fragment_chunks(const Schedule& s, Operand operand) { return fragment_bytes(s, operand) / 16; }

bool lds_row_major(const Schedule& s, Operand operand) { return element_bits(operand_type(s, operand)) == 6; }

int fragment_reads(const Schedule& s, Operand operand) {
  if (lds_row_major(s, operand)) return fragment_bytes(s, operand) / 8;
  // K-major operands: two 8-byte transposing reads per 16-byte piece.
  return (k_major(s.layout, operand) ? 2 : 1) * fragment_chunks(s, operand);
}

int part_bytes(const Schedule& s) { return s.waves * 1024; }

int operand_tile_bytes(const Schedule& s, Operand operand) {
  const int rows = operand == Operand::a ? s.tile_m : s.tile_n;
  return rows * s.tile_k * element_bits(operand_type(s, operand)) / 8;
}

int g2s_parts(const Schedule& s, Operand operand) {
  return operand_tile_bytes(s, operand) / part_bytes(s);
}

int slot_bytes(const Schedule& s) {
  return operand_tile_bytes(s, Operand::a) + operand_tile_bytes(s, Operand::b);
}

int lds_bytes(const Schedule& s) { return s.lds_buffers * slot_bytes(s); }

int lds_offset(const Schedule& s, Operand operand, int part, int slot) {
  const int operand_base = operand == Operand::a ? 0 : operand_tile_bytes(s, Operand::a);
  return slot * slot_bytes(s) + operand_base + part * part_bytes(s);
}

RowRange part_rows(const Schedule& s, Operand operand, int part) {
  const int extent = operand == Operand::a ? s.tile_m : s.tile_n;
  if (lds_row_major(s, operand)) {  // bytes [part * P, (part + 1) * P) of [kpack][row][row bytes]
    const int row_bytes = operand_tile_bytes(s, operand) / (extent * kpacks(s)), kpack_bytes = extent * row_bytes;
    const int first = part * part_bytes(s), last = first + part_bytes(s) - 1;
    if (first / kpack_bytes != last / kpack_bytes) return {0, extent};  // spans two kpacks
    return {first % kpack_bytes / row_bytes, last % kpack_bytes / row_bytes + 1};
  }
  const int rows = extent / g2s_parts(s, operand);
  return {part * rows, (part + 1) * rows};
}

WaveCoord wave_coord(const Schedule& s, int wave) {
  const int per_group = s.waves / s.pingpong_groups;
  return {wave / s.wave_grid_n, wave % s.wave_grid_n, wave / per_group};
}

static RowRange half_of(RowRange whole, std::optional<int> half) {
  if (!half) return whole;
  const int len = (whole.end - whole.begin) / 2;
  return {whole.begin + *half * len, whole.begin + (*half + 1) * len};
}

RowRange s2r_rows(const Schedule& s, const ScheduleOp& op, int wave) {
  const WaveCoord c = wave_coord(s, wave);
  if (op.operand == Operand::a) {
    const int wm = s.tile_m / s.wave_grid_m;
    return half_of({c.wm * wm, (c.wm + 1) * wm}, op.m_half);
  }
  const int wn = s.tile_n / s.wave_grid_n;
  return half_of({c.wn * wn, (c.wn + 1) * wn}, op.n_half);
}

std::vector<int> parts_read(const Schedule& s, const ScheduleOp& op, int wave) {
  const RowRange rows = s2r_rows(s, op, wave);
  std::vector<int> parts;
  for (int p = 0; p < g2s_parts(s, op.operand); ++p) {
    const RowRange pr = part_rows(s, op.operand, p);
    if (pr.begin < rows.end && rows.begin < pr.end) parts.push_back(p);
  }
  return parts;
}

static int blocks(int rows, int block) { return rows / block; }

int ds_reads(const Schedule& s, const ScheduleOp& op) {
  const MfmaShape m = mfma_shape(s.mfma);
  const RowRange rows = s2r_rows(s, op, 0);
  const int block = op.operand == Operand::a ? m.m : m.n;
  return blocks(rows.end - rows.begin, block) * (op.kpack ? 1 : kpacks(s)) * fragment_reads(s, op.operand);
}

int mfma_count(const Schedule& s, const ScheduleOp& op) {
  const MfmaShape m = mfma_shape(s.mfma);
  const int wm = s.tile_m / s.wave_grid_m, wn = s.tile_n / s.wave_grid_n;
  const int mb = blocks(op.m_half ? wm / 2 : wm, m.m);
  const int nb = blocks(op.n_half ? wn / 2 : wn, m.n);
  return mb * nb * (op.kpack ? 1 : kpacks(s));
}

// An S2R's registers must survive until the last MFMA that consumes them; an MFMA
// `d` stages later needs d+1 register versions (like LDS multi-versioning).
int s2r_register_versions(const Schedule& s, int index) {
  const ScheduleOp& r = s.ops.at(index);
  int versions = 1;
  for (const ScheduleOp& m : s.ops) {
    if (m.kind != OpKind::mfma || m.stage < r.stage) continue;
    const bool same_kpack = !r.kpack || !m.kpack || *r.kpack == *m.kpack;
    const std::optional<int>& rh = r.operand == Operand::a ? r.m_half : r.n_half;
    const std::optional<int>& mh = r.operand == Operand::a ? m.m_half : m.n_half;
    const bool same_half = !rh || !mh || *rh == *mh;
    if (same_kpack && same_half) versions = std::max(versions, m.stage - r.stage + 1);
  }
  return versions;
}

int accumulator_registers(const Schedule& s) {
  return (s.tile_m / s.wave_grid_m) * (s.tile_n / s.wave_grid_n) / gfx950::kWaveSize;
}

// Addresses, loop counters and M0 staging; a conservative allowance the code
// generator's register plan stays within.
static constexpr int kAddressingVgprs = 24;

int vgpr_estimate(const Schedule& s) {
  int regs = kAddressingVgprs;
  for (size_t i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].kind == OpKind::s2r)
      regs += ds_reads(s, s.ops[i]) / fragment_reads(s, s.ops[i].operand) * fragment_bytes(s, s.ops[i].operand) / 4 *
              s2r_register_versions(s, static_cast<int>(i));
  return regs;
}

}  // namespace cdna4
