// compile_attention(schedule, shape): plan, check, lower, assemble, link.

#include <fmt/format.h>

#include "cdna4/attention.hpp"
#include "cdna4/error.hpp"
#include "codegen/kernel_build.hpp"
#include "codegen/attention/lower_attention.hpp"
#include "codegen/gemm/compile_cache.hpp"
#include "common/limits.hpp"

namespace cdna4 {

namespace {

using Clock = codegen::BuildClock;
using codegen::ms_since;

// Everything the kernel's bytes depend on.
std::string cache_key(const AttentionSchedule& s, const AttentionShape& sh, const std::string& name,
                      const CompileOptions& o) {
  std::string key = fmt::format("attention|{}|{}|{},{},{},{},{}|{}|", s.name, s.target, s.dim, s.waves, s.block_q,
                                s.block_k, s.lds_buffers, s.num_stages.value_or(0));
  for (const AttentionOp& op : s.ops)
    key += fmt::format("{},{},{},{},{},{},{},{},{},{};", int(op.kind), op.stage, op.order, op.phase,
                       op.vmcnt.value_or(-1), op.lgkmcnt.value_or(-1), int(op.operand), op.part,
                       op.kpack.value_or(-1), op.prio);
  return key + fmt::format("|{},{},{},{},{},{},{},{:a},{},{}|{}|{}{}", sh.batch, sh.seqlen_q, sh.seqlen_k, sh.heads,
                           sh.heads_kv, sh.dim, sh.causal, sh.softmax_scale(), int(sh.out), sh.lse, name, o.verify,
                           o.keep_assembly || o.text_assembly);
}

}  // namespace

double attention_flops(const AttentionShape& sh) {
  const double full = 4.0 * double(sh.batch) * double(sh.heads) * double(sh.seqlen_q) * double(sh.seqlen_k) *
                      double(sh.dim);
  return sh.causal ? full / 2 : full;
}

AttentionKernel compile_attention(const AttentionSchedule& schedule, const AttentionShape& shape,
                                  const CompileOptions& options) {
  const auto t0 = Clock::now();
  const std::string name = codegen::kernel_symbol("cdna4_attn_", schedule.name, options);
  std::string key;
  if (options.use_cache) {
    key = cache_key(schedule, shape, name, options);
    if (std::optional<AttentionKernel> hit = detail::compile_cache().find<AttentionKernel>(key)) {
      hit->stats.cached = true;
      hit->stats.total_ms = ms_since(t0);
      return *hit;
    }
  }
  AttentionKernel out;
  CompileStats& st = out.stats;
  const AttentionSchedule planned = plan(schedule);
  // The schedule's proof (waits, barriers, LDS races, the register chain);
  // plan() applied the limits the lowering relies on.
  if (options.verify) verify_or_throw(planned);
  st.parse_plan_verify_ms = ms_since(t0);

  auto t = Clock::now();
  const codegen::LoweredAttention lowered = codegen::lower_attention(planned, shape, name);
  if (options.keep_assembly || options.text_assembly) out.assembly = lowered.assembly();
  st.lower_ms = ms_since(t);
  codegen::Bytes hsaco = codegen::assemble_and_link(lowered.code, lowered.spec, out.assembly, options, st);

  out.kernel = Kernel::from_hsaco(std::move(hsaco), name);
  out.shape = shape;
  out.schedule = planned;
  out.grid = Dim3(uint32_t((shape.seqlen_q + schedule.block_q - 1) / schedule.block_q), uint32_t(shape.heads),
                  uint32_t(shape.batch));
  out.block = Dim3(uint32_t(schedule.waves * gfx950::kWaveSize));
  codegen::fill_code_stats(lowered.code, lowered.spec, schedule.waves, st);
  st.loop_instructions = lowered.loop_instructions;
  st.loop_iterations = lowered.loop_instructions ? 1 : 0;
  st.total_ms = ms_since(t0);
  if (options.use_cache) detail::compile_cache().insert(key, out);
  return out;
}

}  // namespace cdna4
