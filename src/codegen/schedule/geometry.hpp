#pragma once
// The schedule's geometry and its expansion into the instruction stream: what
// the planner, the verifier and the lowering share; not part of the public API.
#include <optional>
#include <string>
#include <vector>

#include "cdna4/schedule.hpp"

namespace cdna4 {

// ---- Geometry (see schedules/README.md, "Geometry") ------------------------
int depth(const Schedule& s);             // max(stage) + 1 (or num_stages)
int kpacks(const Schedule& s);            // tile_k / mfma k
int fragment_bytes(const Schedule& s, Operand operand);  // one MFMA's operand, per lane
int fragment_chunks(const Schedule& s, Operand operand); // ... in 16-byte pieces: 1 KiB of LDS per 64 lanes
// fp6 / bf6 operands (24 bytes a lane) sit in LDS as whole rows of the tile,
// [kpack][row][K bytes], and a fragment is three ds_read_b64; other types in pieces.
bool lds_row_major(const Schedule& s, Operand operand);
int fragment_reads(const Schedule& s, Operand operand);  // ds_reads per fragment
int part_bytes(const Schedule& s);        // waves * 1024: one buffer_load_dwordx4 lds per wave
int g2s_parts(const Schedule& s, Operand operand);
int operand_tile_bytes(const Schedule& s, Operand operand);
int slot_bytes(const Schedule& s);        // A tile + B tile
int lds_bytes(const Schedule& s);         // lds_buffers * slot_bytes
int lds_offset(const Schedule& s, Operand operand, int part, int slot);
struct RowRange { int begin, end; };      // along the operand's non-K dimension (M or N)
RowRange part_rows(const Schedule& s, Operand operand, int part);
struct WaveCoord { int wm, wn, group; };
WaveCoord wave_coord(const Schedule& s, int wave);  // wave = wm * wave_grid_n + wn
RowRange s2r_rows(const Schedule& s, const ScheduleOp& s2r, int wave);
std::vector<int> parts_read(const Schedule& s, const ScheduleOp& s2r, int wave);
int ds_reads(const Schedule& s, const ScheduleOp& s2r);  // ds_reads per lane (every read of every fragment)
int mfma_count(const Schedule& s, const ScheduleOp& mfma);
int s2r_register_versions(const Schedule& s, int s2r_index);
int accumulator_registers(const Schedule& s);  // AGPRs per lane
int vgpr_estimate(const Schedule& s);          // S2R registers (all versions) + addressing

// ---- Expansion: the flattened instruction stream the code generator emits ----
// Iteration i = 0 .. k_tiles + depth - 2 runs every op whose tile k = i - stage is in
// [0, k_tiles), in `order`. Waits are rewritten to the count the hardware needs there.
enum class Region { prologue, steady, epilogue };
struct OpInstance {
  int op = -1;          // index into Schedule::ops; -1 = the ping-pong phase-shift barrier
  int iteration = 0;
  int k = 0;            // tile this instance works on
  std::optional<int> vmcnt, lgkmcnt;  // counts to emit before the instance
};
std::vector<OpInstance> expand(const Schedule& s, int k_tiles, int group);
// The first iteration not shaped by the start of K: iterations i in
// [translation_invariant_from(s), k_tiles) expand to the same instances for any
// k_tiles (with k = i - stage): every op is present and every wait looks back only
// at issued loads. The end of K shapes only iterations i >= k_tiles.
int translation_invariant_from(const Schedule& s);
Region region_of(const Schedule& s, int iteration, int k_tiles);
std::string describe_iteration(const Schedule& s, int iteration, int k_tiles);  // "prologue iteration i=0"

}  // namespace cdna4
