// compile_attention(schedule, shape): plan, check, lower, assemble, link.
#include <chrono>
#include <cctype>

#include <fmt/format.h>

#include "cdna4/attention.hpp"
#include "cdna4/error.hpp"
#include "codegen/assembler.hpp"
#include "codegen/attention/lower_attention.hpp"
#include "codegen/attention/plan.hpp"
#include "codegen/gemm/compile_cache.hpp"
#include "common/limits.hpp"

namespace cdna4 {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string kernel_name_for(const AttentionSchedule& s, const CompileOptions& o) {
  if (!o.kernel_name.empty()) return o.kernel_name;
  std::string name = "cdna4_attn_" + s.name;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
  return name;
}

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

int count_mfma(const codegen::isa::Code& code) {
  int n = 0;
  for (const auto& l : code.lines)
    n += l.kind == codegen::isa::Line::Kind::instruction && codegen::isa::is_mfma(l.inst);
  return n;
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
  const std::string name = kernel_name_for(schedule, options);
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
  // The schedule's proof: the structural checks the lowering relies on (the
  // attention verifier's findings are reported from here).
  if (options.verify) codegen::attention::check_attention_schedule(planned);
  st.parse_plan_verify_ms = ms_since(t0);

  auto t = Clock::now();
  const codegen::LoweredAttention lowered = codegen::lower_attention(planned, shape, name);
  if (options.keep_assembly || options.text_assembly) out.assembly = lowered.assembly();
  st.lower_ms = ms_since(t);
  t = Clock::now();
  const auto object = options.text_assembly ? codegen::assemble(out.assembly, name + ".s")
                                            : codegen::assemble_code(lowered.code, lowered.spec, name + ".s");
  st.assemble_ms = ms_since(t);
  t = Clock::now();
  codegen::Bytes hsaco = codegen::link_hsaco(object);
  st.link_ms = ms_since(t);

  out.kernel = Kernel::from_hsaco(std::move(hsaco), name);
  out.shape = shape;
  out.schedule = planned;
  out.grid = Dim3(uint32_t((shape.seqlen_q + schedule.block_q - 1) / schedule.block_q), uint32_t(shape.heads),
                  uint32_t(shape.batch));
  out.block = Dim3(uint32_t(schedule.waves * gfx950::kWaveSize));
  st.instructions = int(lowered.code.instruction_count());
  st.loop_instructions = lowered.loop_instructions;
  st.loop_iterations = lowered.loop_instructions ? 1 : 0;
  st.mfma = count_mfma(lowered.code);
  st.vgprs = int(lowered.spec.next_free_vgpr());
  st.agprs = int(lowered.spec.agprs);
  st.sgprs = int(lowered.spec.sgprs);
  st.lds_bytes = int(lowered.spec.lds_bytes);
  const gfx950::Occupancy o = gfx950::occupancy(st.vgprs, st.lds_bytes, schedule.waves);
  st.waves_per_simd = o.waves_per_simd;
  st.occupancy_limit = o.limit;
  st.total_ms = ms_since(t0);
  if (options.use_cache) detail::compile_cache().insert(key, out);
  return out;
}

}  // namespace cdna4
