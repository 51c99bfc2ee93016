#pragma once
// Attention forward: the problem (shape, strided bf16 tensors) and its two CPU
// references, then the attention schedule IR, compile_attention and run_attention.
// Per batch b and query head h (reading key/value head
// h / (H / Hkv): MHA, GQA, MQA):
//   O[b, i, h] = sum_j softmax_j(scale * Q[b, i, h] . K[b, j, hk]) V[b, j, hk]
//   LSE[b, h, i] = ln(sum_j exp(scale * Q[b, i, h] . K[b, j, hk]))
// over the keys j the row sees: all Nk, or with `causal` j <= i + Nk - Nq (the
// mask aligned to the bottom-right corner, as FlashAttention 2). A row that sees
// no key has O = +0 and LSE = -infinity. docs/attention.md states both
// references; the policy reference's arithmetic is the one the kernels follow.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cdna4/gemm.hpp"
#include "cdna4/schedule.hpp"

namespace cdna4 {

struct AttentionShape {
  int64_t batch = 1;     // B
  int64_t seqlen_q = 0;  // Nq, queries
  int64_t seqlen_k = 0;  // Nk, keys and values
  int64_t heads = 0;     // H, query heads (and O's)
  int64_t heads_kv = 0;  // Hkv, key/value heads; H a multiple of it
  int64_t dim = 0;       // D, 64 or 128
  bool causal = false;
  std::optional<float> scale;   // the softmax scale, finite and > 0; absent: 1/sqrt(D) rounded to fp32
  OutType out = OutType::bf16;  // O's type: bf16 (round to nearest even) or f32
  bool lse = false;             // whether the LSE is wanted (the policy reference returns it only then)

  float softmax_scale() const;
};

// Element strides of a [B, S, H, D] tensor whose D elements are consecutive.
struct TensorStrides {
  int64_t batch = 0, seq = 0, head = 0;
  static TensorStrides bshd(int64_t seqlen, int64_t heads, int64_t dim);  // packed [B][S][H][D]
  static TensorStrides bhsd(int64_t seqlen, int64_t heads, int64_t dim);  // packed [B][H][S][D]
  bool operator==(const TensorStrides&) const = default;
};

// One attention forward. Q [B, Nq, H, D], K and V [B, Nk, Hkv, D] are the
// caller's bf16 bytes (HostBytes: borrowed for one call), read at their strides
// (absent: packed BSHD, and the buffer must hold exactly that; with strides, at
// least up to the last element). O [B, Nq, H, D] is written at o_strides (absent:
// packed BSHD; no two elements may overlap); LSE is [B][H][Nq] fp32, packed.
struct AttentionProblem {
  AttentionShape shape;
  HostBytes q, k, v;
  std::optional<TensorStrides> q_strides, k_strides, v_strides, o_strides;

  // The strides in use: the given ones, or packed BSHD.
  TensorStrides strides_q() const;
  TensorStrides strides_k() const;
  TensorStrides strides_v() const;
  TensorStrides strides_o() const;
  // Elements from O's first to its last ((B-1)*batch + (Nq-1)*seq + (H-1)*head + D).
  int64_t o_elements() const;
};

// Throws cdna4::Error naming what is wrong: B, Nq, Nk, H, Hkv >= 1, H % Hkv == 0,
// D 64 or 128, a finite positive scale, O bf16 or f32, non-negative strides,
// every element inside its buffer (sizes computed without overflow), O's
// elements apart.
void validate(const AttentionProblem& problem);

// The kernel's blocking, which the policy reference follows: the queries of a
// workgroup, the keys of one KV step, and the lanes a row's keys are spread over
// while the row sum is accumulated (key j of a step adds into partial j % sum_lanes;
// a power of two dividing `keys`).
struct AttentionBlocks {
  int64_t queries = 128;
  int64_t keys = 64;
  int64_t sum_lanes = 16;
};

// O as raw bits of shape.out laid out at O's strides (o_elements() elements,
// gaps zero); LSE fp32 [B][H][Nq] when shape.lse, else empty.
struct AttentionOutput {
  std::vector<uint8_t> o, lse;
};
// The policy reference: the blocked online softmax in a kernel's order, each
// fp32 step as docs/attention.md "The policy reference" states it (QK^T and PV
// through the MFMA arithmetic `policy`, exp2 as the emulator's v_exp_f32, P
// rounded to bf16). A kernel following that arithmetic matches it bit for bit.
AttentionOutput reference(const AttentionProblem& problem, const AttentionBlocks& blocks,
                          MfmaPolicy policy = MfmaPolicy::fp32_fma_chain_k_order);

// The float64 reference: O laid out as AttentionOutput::o (gaps zero) and LSE
// [B][H][Nq] (always), in double precision from the bf16 values and the fp32 scale.
struct AttentionValues {
  std::vector<double> o, lse;
};
AttentionValues reference_f64(const AttentionProblem& problem);

// ---- Schedule IR: one KV-block iteration of attention forward ----------------
// docs/codegen.md "Attention" and schedules/README.md "Attention schedules" give
// the lowering and the JSON. Each wave owns 16 query rows (block_q = 16 * waves)
// and computes, per KV block t of block_k keys, with S^T = K Q^T so that a lane
// holds one query row (lane % 16) and keys 4 * (lane / 16) + r of each 16-key tile:
//   S^T = K_t Q^T      v_mfma_f32_16x16x32_bf16, d in order (kpack: 32 d)
//   softmax            in registers, row max across the 4 lanes of a row
//   O^T += V_t^T P^T   v_mfma_f32_16x16x16_bf16, keys in order (kpack: 16 keys)
// which is the policy reference's arithmetic with AttentionBlocks{block_q,
// block_k, 16}: key j of a block adds into row-sum partial j mod 16.
enum class AttentionOpKind {
  g2s,        // part `part` of the K or V block: global -> LDS slot t mod lds_buffers
  s2r,        // LDS -> registers: K (kpack: 32 d; absent: all) or V (kpack: 16 keys; absent: all)
  dot_qk,     // S^T = K Q^T, kpack (32 d) or all; kpacks in order, the first starts S from +0
  mask,       // scores of keys the row does not see -> -infinity (only on blocks that hold such keys)
  row_max,    // m_new = max(m, row of S) across lanes; mc, alpha; m = m_new
  exp,        // P = exp2(fma(S, c, -mc)) in place of S
  row_sum,    // l partials = l * alpha, then + P, keys in order
  rescale_o,  // O = O * alpha
  convert_p,  // P -> bf16 operand of dot_pv (kpack: 16 keys; absent: all)
  dot_pv,     // O^T += V^T P^T, kpack (16 keys) or all; kpacks in order
  barrier,    // s_barrier
  setprio,    // s_setprio prio
  wait,       // a bare s_waitcnt
};
enum class KvOperand { k, v };
const char* to_string(AttentionOpKind kind);
const char* to_string(KvOperand operand);

struct AttentionOp {
  AttentionOpKind kind = AttentionOpKind::barrier;
  int stage = 0;  // iteration i runs this op on KV block t = i - stage
  int order = 0;  // emission order inside the loop body (unique)
  int phase = 0;  // cluster the op belongs to (non-decreasing with order)
  std::optional<int> vmcnt;    // s_waitcnt vmcnt(N) just before the op
  std::optional<int> lgkmcnt;  // s_waitcnt lgkmcnt(N) just before the op
  KvOperand operand = KvOperand::k;  // g2s, s2r
  int part = 0;                      // g2s
  std::optional<int> kpack;          // s2r, dot_qk, convert_p, dot_pv
  int prio = 0;                      // setprio 0..3
  bool operator==(const AttentionOp&) const = default;
};

struct AttentionSchedule {
  std::string name;
  std::string target = "gfx950";
  int dim = 128;          // D: 64 or 128
  int waves = 4;          // 4 or 8
  int block_q = 64;       // 16 * waves
  int block_k = 64;       // keys per KV block: 32, 64 or 128
  int lds_buffers = 2;    // slots of K and of V; block t lives in slot t mod lds_buffers
  std::optional<int> num_stages;  // inferred mode: the planner writes `ops`
  std::vector<AttentionOp> ops;   // explicit mode
  bool operator==(const AttentionSchedule&) const = default;
};
// The blocking the schedule's kernels follow (the policy reference's argument).
AttentionBlocks blocks(const AttentionSchedule& schedule);

// "gemm" or "attention": the schedule text's "kind" (absent: "gemm").
std::string schedule_kind(std::string_view json_text, const std::string& file = "<schedule>");
AttentionSchedule parse_attention_schedule(std::string_view json_text, const std::string& file = "<schedule>");
AttentionSchedule load_attention_schedule(const std::string& path);
std::string to_json(const AttentionSchedule& schedule);  // canonical; parse(to_json(s)) == s
std::string describe(const AttentionSchedule& schedule, int op_index);
// num_stages -> ops; explicit ops without any vmcnt/lgkmcnt -> waits computed.
AttentionSchedule plan(const AttentionSchedule& schedule);
// Waits, barriers, LDS RAW/WAR of the K and V slots, and the register chain
// dot_qk -> mask -> row_max -> exp -> row_sum / convert_p -> dot_pv, rescale_o
// before dot_pv (findings name the op, the iteration and the wave).
VerifyReport verify(const AttentionSchedule& planned, const VerifyOptions& options = {});
void verify_or_throw(const AttentionSchedule& planned, const VerifyOptions& options = {});

// ---- Compile and run -----------------------------------------------------------
struct AttentionKernel {
  Kernel kernel;
  Dim3 grid;   // (ceil(Nq / block_q), H, B) workgroups
  Dim3 block;  // 64 * waves work-items
  AttentionShape shape;
  AttentionSchedule schedule;  // planned
  std::string assembly;        // with CompileOptions::keep_assembly
  CompileStats stats;
};
// Plans and verifies (a rejected schedule throws), lowers for the shape
// (Nq, Nk, heads, D, causal, scale, out and lse compiled in; tensor addresses and
// strides are kernel arguments), assembles and links in process.
AttentionKernel compile_attention(const AttentionSchedule& schedule, const AttentionShape& shape,
                                  const CompileOptions& options = {});

struct AttentionRun {
  AttentionOutput out;  // as reference(problem, blocks(schedule)) lays it out
  LaunchStats launch;
  CompileStats compile;
};
// Validates the problem against the kernel's shape, uploads, launches, downloads.
AttentionRun run_attention(Device& device, const AttentionKernel& kernel, const AttentionProblem& problem,
                           const LaunchOptions& launch = {});
// The same, compiling the schedule for problem.shape first (cached).
AttentionRun run_attention(Device& device, const AttentionSchedule& schedule, const AttentionProblem& problem,
                           const CompileOptions& compile_options = {}, const LaunchOptions& launch = {});
// Attention FLOPs: 4 B H Nq Nk D, half of that causal.
double attention_flops(const AttentionShape& shape);

}  // namespace cdna4
