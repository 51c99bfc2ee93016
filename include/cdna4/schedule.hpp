#pragma once
// Schedule IR: what a GEMM main loop does and when. The JSON format, the geometry
// (G2S parts, kpacks, LDS slots) and the verifier's rules are documented in
// schedules/README.md; the code generator lowers exactly what is written there.
#include <cdna4/error.hpp>
#include <cdna4/vocabulary.hpp>

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cdna4 {

// A schedule file that cannot be read: names the file, the JSON path of the
// offending field (e.g. "ops[7].stage") and what was expected.
class ScheduleError : public Error {
 public:
  ScheduleError(std::string file, std::string json_path, const std::string& message);
  const std::string& file() const { return file_; }
  const std::string& json_path() const { return json_path_; }

 private:
  std::string file_;
  std::string json_path_;
};

struct ScheduleOp {
  OpKind kind = OpKind::barrier;
  int stage = 0;  // iteration i runs this op on tile k = i - stage
  int order = 0;  // emission order inside the loop body (unique)
  int phase = 0;  // MFMA phase / cluster the op belongs to (non-decreasing with order)
  std::optional<int> vmcnt;    // s_waitcnt vmcnt(N) issued just before the op
  std::optional<int> lgkmcnt;  // s_waitcnt lgkmcnt(N) issued just before the op
  Operand operand = Operand::a;  // g2s, s2r
  int part = 0;                  // g2s: which G2S part of the operand tile
  std::optional<int> kpack;      // s2r, mfma: which kpack; absent = every kpack
  std::optional<int> m_half;     // s2r of a, mfma: half of the wave's M rows; absent = all
  std::optional<int> n_half;     // s2r of b, mfma: half of the wave's N cols; absent = all
  int prio = 0;                  // setprio: s_setprio value 0..3
  bool operator==(const ScheduleOp&) const = default;
};

// Fused epilogue: D = act(alpha * (A x B) + beta * C + bias), converted to D's
// type. alpha and beta are kernel arguments; the rest is compiled in.
enum class Activation { none, relu, gelu, silu, tanh };  // gelu: the tanh form
struct Epilogue {
  std::optional<DataType> c;           // C's type (f32, bf16, f16); absent: no C, no beta
  BiasDim bias = BiasDim::none;
  DataType bias_type = DataType::f32;  // f32 or bf16
  Activation activation = Activation::none;
  bool operator==(const Epilogue&) const = default;
};
const char* to_string(Activation activation);

// Which output tile a workgroup computes ("workgroup_order"). gfx950 dispatches
// workgroups round-robin over its XCDs, each with its own L2: with `xcds` > 1
// the kernel gives the workgroups one XCD receives consecutive tile numbers
// (as HipKittens does); tile numbers then run down `group_m` tile rows before
// the next column, so an XCD's tiles form a compact block that shares A and B
// panels in its L2. Default: row-major tiles in dispatch order.
struct WorkgroupOrder {
  int xcds = 1;     // 1 or 8
  int group_m = 1;  // 1..64
  bool operator==(const WorkgroupOrder&) const = default;
};

struct Schedule {
  std::string name;
  std::string target = "gfx950";
  DataType type_a = DataType::bf16, type_b = DataType::bf16;
  DataType type_acc = DataType::f32, type_c = DataType::f32;
  Layout layout = Layout::nn;
  int tile_m = 0, tile_n = 0, tile_k = 0;
  int waves = 0;
  int wave_grid_m = 0, wave_grid_n = 0;  // waves == wave_grid_m * wave_grid_n
  MfmaKind mfma = MfmaKind::f32_16x16x32_bf16;
  int lds_buffers = 0;       // LDS slots; tile k lives in slot k mod lds_buffers
  int pingpong_groups = 1;   // 1, or 2 wave groups offset by one s_barrier
  WorkgroupOrder workgroup_order;
  // MX scales ("scale": {"a": "e8m0", "b": "e8m0"}): one E8M0 byte per 32 K
  // elements per row of A and per column of B; exactly with a v_mfma_scale_* MFMA.
  bool scaled = false;
  // "epilogue": {...}; absent: D = A x B, kernel arguments a, b, c only.
  std::optional<Epilogue> epilogue;
  std::optional<int> num_stages;  // inferred mode: the planner writes `ops`
  std::vector<ScheduleOp> ops;    // explicit mode
  bool operator==(const Schedule&) const = default;
};
inline DataType operand_type(const Schedule& s, Operand operand) { return operand == Operand::a ? s.type_a : s.type_b; }

// ---- JSON ------------------------------------------------------------------
// A schedule's text, or its file, holds at most 16 MiB.
Schedule parse_schedule(std::string_view json_text, const std::string& file = "<schedule>");
Schedule load_schedule(const std::string& path);
std::string to_json(const Schedule& schedule);  // canonical text; parse(to_json(s)) == s
std::string describe(const Schedule& schedule, int op_index);  // "ops[3] (g2s a part=1 ...)"

// ---- Planner ---------------------------------------------------------------
// num_stages -> ops (G2S in stage 0, compute in the last stage, barriers, waits);
// explicit ops without any vmcnt/lgkmcnt -> waits computed. Otherwise unchanged.
Schedule plan(const Schedule& s);

// ---- Verifier --------------------------------------------------------------
struct Finding {
  std::string rule;  // e.g. "raw-race", "war-race", "stage-order", "lds-capacity"
  int op = -1;       // index into ops, -1 if the whole schedule
  std::string message;
};
struct VerifyReport {
  bool accepted() const { return findings.empty(); }
  std::vector<Finding> findings;
  std::vector<int> k_tiles_checked;
  std::string summary() const;  // one line per finding
};
struct VerifyOptions {
  std::vector<int> k_tiles;  // empty: 1 .. 2*depth + lds_buffers + 2
  size_t max_findings = 16;
  bool hazards_only = false;  // skip static rules (used by the planner)
};
VerifyReport verify(const Schedule& planned, const VerifyOptions& options = {});
void verify_or_throw(const Schedule& planned, const VerifyOptions& options = {});

}  // namespace cdna4
