// One attention forward on a device: check the problem against the kernel,
// upload, launch, download O and LSE.
#include <fmt/format.h>

#include "cdna4/attention.hpp"
#include "cdna4/error.hpp"
#include "codegen/device_upload.hpp"

namespace cdna4 {

namespace {

constexpr int64_t kMaxSpan = (int64_t(1) << 31) - 1;  // below the out-of-range lane offset 0x80000000

bool same_shape(const AttentionShape& a, const AttentionShape& b) {
  return a.batch == b.batch && a.seqlen_q == b.seqlen_q && a.seqlen_k == b.seqlen_k && a.heads == b.heads &&
         a.heads_kv == b.heads_kv && a.dim == b.dim && a.causal == b.causal &&
         a.softmax_scale() == b.softmax_scale() && a.out == b.out && a.lse == b.lse;
}

// Byte strides as the kernel's 32-bit arguments, with the bounds its offsets need.
void push_strides(std::vector<Arg>& args, const char* tensor, const TensorStrides& st, int64_t rows, int64_t row_bytes,
                  int64_t element, bool rows_on_16_bytes) {
  const auto fail = [&](const std::string& why) { throw Error(fmt::format("run_attention: {} {}", tensor, why)); };
  if (rows_on_16_bytes && (st.batch % 8 || st.seq % 8 || st.head % 8))
    fail(fmt::format("strides ({}, {}, {}) must be multiples of 8 elements (rows are loaded 16 bytes at a time)",
                     st.batch, st.seq, st.head));
  for (int64_t s : {st.batch, st.seq, st.head})
    if (s * element > int64_t(UINT32_MAX)) fail(fmt::format("stride {} elements is 4 GiB or more", s));
  if ((rows - 1) * st.seq * element + row_bytes > kMaxSpan)
    fail(fmt::format("rows of one (batch, head) span more than 2 GiB ({} rows {} elements apart), which a buffer "
                     "descriptor's 32-bit offsets do not reach", rows, st.seq));
  for (int64_t s : {st.batch, st.seq, st.head}) args.push_back(uint32_t(s * element));
}

}  // namespace

AttentionRun run_attention(Device& device, const AttentionKernel& kernel, const AttentionProblem& problem,
                           const LaunchOptions& launch) {
  validate(problem);
  const AttentionShape& sh = problem.shape;
  if (!same_shape(sh, kernel.shape))
    throw Error(fmt::format("run_attention: kernel {} was compiled for another shape (B={} Nq={} Nk={} H={} Hkv={} "
                            "D={}, causal, scale, out and lse included) than the problem's",
                            kernel.kernel.name(), kernel.shape.batch, kernel.shape.seqlen_q, kernel.shape.seqlen_k,
                            kernel.shape.heads, kernel.shape.heads_kv, kernel.shape.dim));
  const int64_t out_size = element_bytes(sh.out);
  Buffer q = codegen::upload(device, problem.q), k = codegen::upload(device, problem.k),
         v = codegen::upload(device, problem.v);
  Buffer o = device.alloc(size_t(problem.o_elements() * out_size));
  o.fill_zero();
  Buffer lse;
  std::vector<Arg> args = {q, k, v, o};
  if (sh.lse) {
    lse = device.alloc(size_t(sh.batch * sh.heads * sh.seqlen_q * 4));
    args.push_back(lse);
  } else {
    args.push_back(Arg::pointer(0));
  }
  push_strides(args, "Q", problem.strides_q(), sh.seqlen_q, sh.dim * 2, 2, true);
  push_strides(args, "K", problem.strides_k(), sh.seqlen_k, sh.dim * 2, 2, true);
  push_strides(args, "V", problem.strides_v(), sh.seqlen_k, sh.dim * 2, 2, true);
  push_strides(args, "O", problem.strides_o(), sh.seqlen_q, sh.dim * out_size, out_size, false);
  AttentionRun run;
  run.compile = kernel.stats;
  run.launch = device.launch(kernel.kernel, kernel.grid, kernel.block, args, launch);
  run.out.o.resize(size_t(problem.o_elements() * out_size));
  o.download(run.out.o.data(), run.out.o.size());
  if (sh.lse) {
    run.out.lse.resize(size_t(sh.batch * sh.heads * sh.seqlen_q * 4));
    lse.download(run.out.lse.data(), run.out.lse.size());
  }
  return run;
}

AttentionRun run_attention(Device& device, const AttentionSchedule& schedule, const AttentionProblem& problem,
                           const CompileOptions& compile_options, const LaunchOptions& launch) {
  validate(problem);
  return run_attention(device, compile_attention(schedule, problem.shape, compile_options), problem, launch);
}

}  // namespace cdna4
