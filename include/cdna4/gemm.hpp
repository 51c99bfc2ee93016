#pragma once
// compile(schedule, shape) -> a gfx950 GEMM kernel; a GemmProblem (shape,
// operands, scales, epilogue data) -> run_gemm, and its CPU reference.
//
// C[M x N] = A[M x K] * B[K x N] with A and B in any of the four layouts
// (Layout: each operand row-major as stored, K contiguous or K the slow
// dimension), fp32 accumulation, C row-major (ldc) in fp32, bf16 or f16 (round
// to nearest even), an optional fused epilogue.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cdna4/reference.hpp"
#include "cdna4/runtime.hpp"
#include "cdna4/schedule.hpp"

namespace cdna4 {

// The output type a schedule's kernels write: GemmShape::out when given, else
// the schedule's types.c (a ScheduleError at "types.c" unless f32, bf16 or f16).
OutType output_type(const Schedule& schedule, const std::optional<OutType>& out);

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  // Elements between rows as stored (see Layout); 0 = packed: the stored row's
  // length (A: K for "n", M for "t"; B: N for "n", K for "t"; C: N).
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t ldc_in = 0;                 // a fused epilogue's C input; 0 = ldc
  // C's element type; absent: the schedule's types.c. The one override of types.c.
  std::optional<OutType> out;
  // Strided batch: `batch` GEMMs, the i-th at A + i * stride_a, B + i * stride_b,
  // C + i * stride_c (elements; 0 = packed: stored rows * ld). The grid's z
  // dimension runs over the batch.
  int64_t batch = 1;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;

  // An operand as stored in `layout`: rows x cols, row-major, ld elements apart.
  int64_t stored_rows(Layout layout, Operand op) const;
  int64_t stored_cols(Layout layout, Operand op) const;
  int64_t ld(Layout layout, Operand op) const;      // lda / ldb, or packed
  int64_t stride(Layout layout, Operand op) const;  // stride_a / stride_b, or packed
  // Elements of one operand matrix the kernel reads, from its first: a K-major
  // operand's rows are read in whole 16-byte units (`bits`: its element size).
  int64_t read_elements(Layout layout, Operand op, int bits) const;
  int64_t c_ld() const { return ldc ? ldc : n; }
  int64_t c_in_ld() const { return ldc_in ? ldc_in : c_ld(); }
  int64_t c_stride() const { return stride_c ? stride_c : m * c_ld(); }
  // "257x130x96 f32" ("257x130x96" without an output type), "... batch 4", "... batch 4 strides 33024,packed,33410"
  std::string to_string() const;
};

// K, lda and ldb of an operand of `bits`-bit elements come in multiples of this
// many elements: 16 bytes (8, 16 or 32 elements), 64 for 6-bit types (48 bytes).
int element_granule(int bits);
// K of a schedule's GEMMs comes in multiples of this: the larger of A's and B's granules.
int k_granule(const Schedule& s);

// Parses "MxNxK".
GemmShape parse_shape(const std::string& text);

struct CompileOptions {
  bool use_cache = true;    // reuse a kernel compiled before for the same schedule and shape
  // false lowers a schedule the verifier rejects, to watch on the emulator what
  // the rejected schedule does (its races); never for production kernels.
  bool verify = true;
  std::string kernel_name;  // default: derived from the schedule name
  // Parse the kernel's assembly text instead of streaming its instructions to the
  // assembler; both give the same bytes, streaming is faster.
  bool text_assembly = false;
  // Replaces the schedule's operand layout for this compile: one schedule serves all four.
  std::optional<Layout> layout;
  // Replaces the schedule's fused epilogue for this compile (alpha and beta stay
  // kernel arguments). An empty Epilogue{} still makes alpha an argument.
  std::optional<Epilogue> epilogue;
  // Keep the kernel's assembly text in GemmKernel::assembly (always kept with
  // text_assembly); a JIT that only launches need not pay for printing it.
  bool keep_assembly = false;
};

struct CompileStats {
  // Plan and verify; the verifier's simulation runs on a second thread beside
  // lowering, assembly and link, and verify_wait_ms is how long the finished
  // kernel then waited for its verdict (nothing is returned before it accepts).
  double parse_plan_verify_ms = 0, lower_ms = 0, assemble_ms = 0, link_ms = 0, total_ms = 0;
  double verify_wait_ms = 0;
  bool cached = false;
  int instructions = 0;      // in the whole kernel
  int loop_instructions = 0; // in the steady-state loop body (0 when fully unrolled)
  int loop_iterations = 0;   // schedule iterations per loop trip
  int mfma = 0;              // MFMA instructions in the kernel
  int vgprs = 0, agprs = 0, sgprs = 0, lds_bytes = 0;
  // Modeled occupancy: waves that fit on one SIMD by registers (the unified
  // register file, allocated in granules) and by LDS (shared by a CU's SIMDs).
  int waves_per_simd = 0;
  const char* occupancy_limit = "";  // "registers" or "LDS"
};

struct GemmKernel {
  Kernel kernel;
  Dim3 grid;   // workgroups
  Dim3 block;  // work-items
  GemmShape shape;    // as compiled, its output type resolved (GemmShape::out always set)
  Schedule schedule;  // as compiled: CompileOptions' layout and epilogue applied
  std::string assembly;  // the kernel as .s text, with CompileOptions::keep_assembly
  CompileStats stats;
};

// Plans and verifies the schedule (a rejected schedule throws with the
// verifier's message), lowers it for the shape, assembles and links in process.
GemmKernel compile(const Schedule& schedule, const GemmShape& shape, const CompileOptions& options = {});
// The same from schedule JSON text.
GemmKernel compile_json(const std::string& schedule_json, const GemmShape& shape,
                        const CompileOptions& options = {});
// Empties the compile cache (CompileOptions::use_cache). It keeps at most about
// 64 MiB of kernels, dropping the least recently used first.
void clear_compile_cache();

// One GEMM: C = act(alpha * A x B + beta * C_in + bias), `shape.batch` of them.
// The buffers are the caller's (the problem does not own them), densely packed
// elements of the schedule's types.a / types.b (16-bit little-endian, 8-bit one
// per byte, fp6 four in three bytes and fp4 two per byte, lower-k element in the
// low bits), stored as `layout` says, rows shape.lda / shape.ldb apart and the
// batch shape.stride_a / shape.stride_b apart (0 = packed).
// The caller's bytes, borrowed for one call: a span, or a container that
// outlives the call; never a temporary container (its bytes would be gone).
struct HostBytes : std::span<const uint8_t> {
  HostBytes() = default;
  HostBytes(std::span<const uint8_t> bytes) : std::span<const uint8_t>(bytes) {}
  HostBytes(const uint8_t* data, size_t size) : std::span<const uint8_t>(data, size) {}
  HostBytes(const std::vector<uint8_t>& bytes) : std::span<const uint8_t>(bytes) {}
  HostBytes(std::vector<uint8_t>&&) = delete;
};

struct GemmProblem {
  GemmShape shape;
  Layout layout = Layout::nn;  // how A and B are stored (not the schedule's layout)
  HostBytes a, b;
  // An MX-scaled schedule's (Schedule::scaled) E8M0 scales, one byte per 32
  // elements of K: scale_a M x K/32 and scale_b K/32 x N per matrix, row-major,
  // the batch's blocks one after another; K a multiple of 32.
  HostBytes scale_a, scale_b;
  // A fused epilogue's data (Schedule::epilogue, or CompileOptions::epilogue):
  // alpha and beta are kernel arguments; c is the C input in the epilogue's C
  // type (rows shape.c_in_ld() apart, the batch shape.c_stride() apart); the
  // bias (M or N elements of its type) is shared by the batch.
  // Without an epilogue alpha must stay 1 and beta 0 (nothing would apply them).
  float alpha = 1.0f, beta = 0.0f;
  HostBytes c, bias;
};

// A problem as the kernel reads it, and the copies that took: K padded with
// zeros (and the scales with 1.0 blocks) to k_granule, a K-major operand's rows
// padded to whole 16-byte units, and 4- or 6-bit operands stored K-major
// transposed (the kernel reads those with K contiguous). An operand that needs
// none of this is not copied: `problem` then points at the caller's buffer.
class StagedProblem {
 public:
  // The kernel's shape, layout and buffers; of a staged problem that lives on
  // only (a temporary's would point into copies that are gone).
  const GemmProblem& problem() const& { return problem_; }
  const GemmProblem& problem() const&& = delete;
  std::vector<uint8_t> a, b, scale_a, scale_b;  // the copies problem()'s spans point into (empty: none)
  StagedProblem() = default;
  StagedProblem(StagedProblem&&) = default;  // moving keeps the spans valid
  StagedProblem& operator=(StagedProblem&&) = default;
  StagedProblem(const StagedProblem&) = delete;
  StagedProblem& operator=(const StagedProblem&) = delete;

 private:
  friend StagedProblem stage(const Schedule& schedule, const GemmProblem& problem);
  GemmProblem problem_;
};
// Checks every buffer against the problem (a packed operand, scale or C input
// must hold exactly what the shape describes, one with a leading dimension or
// batch stride at least that) and stages it for `schedule`.
StagedProblem stage(const Schedule& schedule, const GemmProblem& problem);

struct GemmRun {
  // C as raw bits (fp32, bf16 or f16): the elements from the first to the last
  // the kernel writes ((batch - 1) * c_stride + (M - 1) * c_ld + N), gaps zero;
  // batch x M x N row-major when C is packed.
  std::vector<uint8_t> c;
  LaunchStats launch;
  CompileStats compile;
};
// Stages the problem, uploads, launches the kernel, downloads C. The staged
// shape and layout must be the kernel's (compile it for
// stage(kernel.schedule, problem).problem.shape and .layout, or use the
// overload below).
GemmRun run_gemm(Device& device, const GemmKernel& kernel, const GemmProblem& problem,
                 const LaunchOptions& launch = {});
// The same, compiling the schedule for the staged problem first (cached).
// The problem's layout decides the kernel's: CompileOptions::layout must be unset.
GemmRun run_gemm(Device& device, const Schedule& schedule, const GemmProblem& problem,
                 const CompileOptions& compile_options = {}, const LaunchOptions& launch = {});

// The CPU reference of run_gemm(schedule, problem).c, bit for bit: per batch
// element reference_operand, reference_gemm (with the scales),
// reference_epilogue (the schedule's epilogue: with CompileOptions::epilogue,
// pass GemmKernel::schedule) and to_output_bits, laid out as GemmRun::c (gaps zero). A check is
// differing_elements(run.c, reference(schedule, problem), element_bytes(out)).
// `policy`: the MFMA arithmetic the run used (EmulatorConfig::mfma_policy).
std::vector<uint8_t> reference(const Schedule& schedule, const GemmProblem& problem,
                               MfmaPolicy policy = MfmaPolicy::fp32_fma_chain_k_order);

// A text picture of a compiled kernel's steady-state loop body
// (GemmKernel::assembly): memory operations, MFMAs, waits, barriers and
// priorities in order, runs of one kind collapsed ("ds_read_b128 x8"), address
// arithmetic left out; one block per loop, empty when the kernel has none.
std::string steady_loop_picture(const std::string& kernel_assembly);
// Bytes of `count` densely packed elements of `type`.
size_t packed_bytes(DataType type, int64_t count);

}  // namespace cdna4
