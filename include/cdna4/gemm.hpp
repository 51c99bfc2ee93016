#pragma once
// compile(schedule, shape) -> a gfx950 GEMM kernel, and a one-call run_gemm.
//
// C[M x N] = A[M x K] * B[K x N] with A and B in any of the four layouts
// (Layout: each operand row-major as stored, K contiguous or K the slow
// dimension), fp32 accumulation, C row-major (ldc) in fp32, bf16 or f16 (round
// to nearest even), an optional fused epilogue.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cdna4/runtime.hpp"
#include "cdna4/schedule.hpp"

namespace cdna4 {

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  // Elements between rows as stored (see Layout); 0 = packed: the stored row's
  // length (A: K for "n", M for "t"; B: N for "n", K for "t"; C: N).
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t ldc_in = 0;                 // a fused epilogue's C input; 0 = ldc
  OutType out = OutType::f32;
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
  std::string to_string() const;  // "257x130x96 f32", "... batch 4", "... batch 4 strides 33024,packed,33410"
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
  // Modeled occupancy: waves that fit on one SIMD by registers (512 per lane,
  // allocated in granules of 8) and by LDS (160 KiB per CU, 4 SIMDs), at most 8.
  int waves_per_simd = 0;
  const char* occupancy_limit = "";  // "registers" or "LDS"
};

struct GemmKernel {
  Kernel kernel;
  Dim3 grid;   // workgroups
  Dim3 block;  // work-items
  GemmShape shape;
  std::string assembly;  // the kernel as .s text, with CompileOptions::keep_assembly
  CompileStats stats;
};

// Plans and verifies the schedule (a rejected schedule throws with the
// verifier's message), lowers it for the shape, assembles and links in process.
GemmKernel compile(const Schedule& schedule, const GemmShape& shape, const CompileOptions& options = {});
// The same from schedule JSON text.
GemmKernel compile_json(const std::string& schedule_json, const GemmShape& shape,
                        const CompileOptions& options = {});

// Host-side GEMM in one call: uploads, runs, downloads. A and B are packed in
// the layout CompileOptions::layout names (default nn: A M x K and B K x N,
// row-major), which the kernel reads as they are; a copy is made only to pad K
// (or a K-major operand's rows) to whole 16-byte units, or to transpose a 4- or
// 6-bit operand stored K-major (the kernel reads those with K contiguous).
// Returns C as raw bits (fp32, bf16 or f16).
struct GemmRun {
  std::vector<uint8_t> c;  // M x N row-major, 4 or 2 bytes per element
  LaunchStats launch;
  CompileStats compile;
};
GemmRun run_gemm(Device& device, const Schedule& schedule, int64_t m, int64_t n, int64_t k,
                 const std::vector<uint16_t>& a_mk, const std::vector<uint16_t>& b_kn, OutType out,
                 const LaunchOptions& launch = {}, const CompileOptions& compile_options = {});
// The same for any operand types: A and B in the layout above (default A M x K and
// B K x N, row-major), elements of the schedule's types.a / types.b packed densely (16-bit little-endian, 8-bit one
// per byte, fp4 two per byte with the lower-k element in the low nibble). An
// MX-scaled schedule (Schedule::scaled) also takes E8M0 scales, one byte per 32
// elements of K: scale_a M x K/32 and scale_b K/32 x N, row-major; K a multiple of 32.
GemmRun run_gemm_packed(Device& device, const Schedule& schedule, int64_t m, int64_t n, int64_t k,
                        const std::vector<uint8_t>& a_mk, const std::vector<uint8_t>& b_kn, OutType out,
                        const LaunchOptions& launch = {}, const CompileOptions& compile_options = {},
                        const std::vector<uint8_t>& scale_a = {}, const std::vector<uint8_t>& scale_b = {});
// A fused epilogue's data (Schedule::epilogue, or CompileOptions::epilogue):
// alpha and beta are kernel arguments; C is `batch` M x N matrices row-major in
// the epilogue's C type, one after another; the bias (M or N elements of its
// type) is shared by the batch.
struct EpilogueData {
  float alpha = 1.0f, beta = 0.0f;
  std::vector<uint8_t> c;
  std::vector<uint8_t> bias;
};

// A strided batch in one launch: A holds `batch` matrices one after another,
// B `batch` of its own (each in the layout above), the scales `batch` blocks of theirs, and C comes back
// as `batch` M x N matrices (the grid's z runs over the batch).
GemmRun run_gemm_batched(Device& device, const Schedule& schedule, int64_t batch, int64_t m, int64_t n, int64_t k,
                         const std::vector<uint8_t>& a_mk, const std::vector<uint8_t>& b_kn, OutType out,
                         const LaunchOptions& launch = {}, const CompileOptions& compile_options = {},
                         const std::vector<uint8_t>& scale_a = {}, const std::vector<uint8_t>& scale_b = {},
                         const EpilogueData& epilogue = {});
// The kernel's arguments exactly as `shape` describes them: A and B in the
// layout of compile_options (else the schedule's), rows lda / ldb apart, the
// batch stride_a / stride_b apart, K a multiple of k_granule; C comes back as
// the elements from D's first to its last ((batch - 1) * stride_c + (M - 1) *
// ldc + N, untouched gaps zero). No copy, no padding; the buffers must hold
// what the shape reads (a K-major operand's rows in whole 16-byte units).
GemmRun run_gemm_shaped(Device& device, const Schedule& schedule, const GemmShape& shape,
                        const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, const LaunchOptions& launch = {},
                        const CompileOptions& compile_options = {}, const std::vector<uint8_t>& scale_a = {},
                        const std::vector<uint8_t>& scale_b = {}, const EpilogueData& epilogue = {});
// A text picture of a compiled kernel's steady-state loop body
// (GemmKernel::assembly): memory operations, MFMAs, waits, barriers and
// priorities in order, runs of one kind collapsed ("ds_read_b128 x8"), address
// arithmetic left out; one block per loop, empty when the kernel has none.
std::string steady_loop_picture(const std::string& kernel_assembly);
// Bytes of `count` densely packed elements of `type`.
size_t packed_bytes(DataType type, int64_t count);

}  // namespace cdna4
