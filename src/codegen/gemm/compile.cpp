// compile(schedule, shape): plan, verify, lower, assemble, link; with a cache.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cctype>
#include <future>
#include <optional>
#include <system_error>

#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "cdna4/gemm.hpp"
#include "common/limits.hpp"
#include "codegen/assembler.hpp"
#include "codegen/kernel_build.hpp"
#include "codegen/gemm/compile_cache.hpp"
#include "common/checked.hpp"
#include "codegen/gemm/lower_gemm.hpp"
#include "codegen/isa/instruction.hpp"
#include "codegen/schedule/schedule_internal.hpp"

namespace cdna4 {

namespace {

using Clock = codegen::BuildClock;
using codegen::ms_since;


struct TimedVerdict {
  VerifyReport report;
  double ms;
};

TimedVerdict timed_verify(const Schedule& planned) {
  const auto start = Clock::now();
  VerifyReport report = verify(planned);
  return {std::move(report), ms_since(start)};
}

void reject_if_refused(const VerifyReport& report, const Schedule& s) {
  if (!report.accepted()) throw Error(fmt::format("schedule '{}' rejected:\n{}", s.name, report.summary()));
}

std::string cache_key(const Schedule& s, const GemmShape& sh, const std::string& name, bool verified,
                      bool keep_assembly) {
  return fmt::format("{}|{}|{},{},{},{}|{}|{}{}", to_json(s), sh.to_string(), sh.lda, sh.ldb, sh.c_ld(),
                     sh.c_in_ld(), name, verified, keep_assembly);
}

// HSA dispatch packets carry the grid in work-items as 32-bit numbers per dimension.
Dim3 grid_for(const Schedule& s, const GemmShape& sh) {
  const int64_t x = checked::ceil_div<int64_t>(sh.n, s.tile_n), y = checked::ceil_div<int64_t>(sh.m, s.tile_m);
  const int64_t block = int64_t(s.waves) * gfx950::kWaveSize;
  if (x * block > int64_t(UINT32_MAX) || y > int64_t(UINT32_MAX) || sh.batch > int64_t(UINT32_MAX))
    throw Error(fmt::format("shape {}: grid {}x{}x{} workgroups of {} work-items exceeds the 32-bit grid size of a "
                            "dispatch", sh.to_string(), x, y, sh.batch, block));
  return Dim3(uint32_t(x), uint32_t(y), uint32_t(sh.batch));
}

}  // namespace

OutType output_type(const Schedule& schedule, const std::optional<OutType>& out) {
  if (out) return *out;
  for (const vocabulary::OutTypeRow& row : vocabulary::kOutTypes)
    if (row.type == schedule.type_c) return row.value;
  throw ScheduleError(schedule.name, "types.c",
                      fmt::format("the kernel writes C in f32, bf16 or f16, not {}", to_string(schedule.type_c)));
}

int element_granule(int bits) { return bits == 6 ? 64 : 128 / bits; }

int k_granule(const Schedule& s) {
  return std::max(element_granule(element_bits(s.type_a)), element_granule(element_bits(s.type_b)));
}

std::string GemmShape::to_string() const {
  std::string text = fmt::format("{}x{}x{}", m, n, k);
  if (out) text += fmt::format(" {}", cdna4::to_string(*out));
  if (batch != 1) text += fmt::format(" batch {}", batch);
  const auto given = [](int64_t v) { return v ? std::to_string(v) : std::string("packed"); };
  if (stride_a || stride_b || stride_c)
    text += fmt::format(" strides {},{},{}", given(stride_a), given(stride_b), given(stride_c));
  return text;
}

int64_t GemmShape::stored_rows(Layout layout, Operand op) const {
  if (op == Operand::a) return k_major(layout, op) ? k : m;
  return k_major(layout, op) ? k : n;
}

int64_t GemmShape::stored_cols(Layout layout, Operand op) const {
  if (op == Operand::a) return k_major(layout, op) ? m : k;
  return k_major(layout, op) ? n : k;
}

int64_t GemmShape::ld(Layout layout, Operand op) const {
  const int64_t given = op == Operand::a ? lda : ldb;
  return given ? given : stored_cols(layout, op);
}

int64_t GemmShape::read_elements(Layout layout, Operand op, int bits) const {
  int64_t cols = stored_cols(layout, op);
  if (k_major(layout, op)) cols = checked::ceil_div<int64_t>(cols, element_granule(bits)) * element_granule(bits);
  return (stored_rows(layout, op) - 1) * ld(layout, op) + cols;
}

int64_t GemmShape::stride(Layout layout, Operand op) const {
  const int64_t given = op == Operand::a ? stride_a : stride_b;
  return given ? given : stored_rows(layout, op) * ld(layout, op);
}

GemmShape parse_shape(const std::string& text) {
  const auto malformed = [&] { return Error(fmt::format("shape '{}': expected MxNxK, e.g. 1024x1024x1024", text)); };
  int64_t dims[3] = {};
  const char* names[3] = {"M", "N", "K"};
  const char* p = text.data();
  const char* const end = text.data() + text.size();
  for (int i = 0; i < 3; ++i) {
    if (i > 0 && (p == end || *p++ != 'x')) throw malformed();
    if (p == end || !std::isdigit(static_cast<unsigned char>(*p))) throw malformed();  // no sign, no space
    const auto [next, ec] = std::from_chars(p, end, dims[i]);
    if (ec == std::errc::result_out_of_range)
      throw Error(fmt::format("shape '{}': {} does not fit in a signed 64-bit integer", text, names[i]));
    if (ec != std::errc()) throw malformed();
    p = next;
  }
  if (p != end) throw malformed();
  GemmShape sh;
  sh.m = dims[0];
  sh.n = dims[1];
  sh.k = dims[2];
  return sh;
}

GemmKernel compile(const Schedule& schedule, const GemmShape& shape, const CompileOptions& options) {
  if (!shape.out) {  // the schedule's types.c
    GemmShape resolved = shape;
    resolved.out = output_type(schedule, shape.out);
    return compile(schedule, resolved, options);
  }
  if (options.epilogue || options.layout) {  // the schedule with the compile's epilogue and layout
    Schedule with = schedule;
    if (options.epilogue) with.epilogue = options.epilogue;
    if (options.layout) with.layout = *options.layout;
    CompileOptions rest = options;
    rest.epilogue.reset();
    rest.layout.reset();
    return compile(with, shape, rest);
  }
  const auto t0 = Clock::now();
  const std::string name = codegen::kernel_symbol("cdna4_gemm_", schedule.name, options);
  std::string key;
  if (options.use_cache) {
    key = "schedule|" + cache_key(schedule, shape, name, options.verify, options.keep_assembly || options.text_assembly);
    if (std::optional<GemmKernel> found = detail::compile_cache().find(key)) {
      GemmKernel& hit = *found;
      hit.stats.cached = true;
      hit.stats.total_ms = ms_since(t0);
      return hit;
    }
  }
  GemmKernel out;
  CompileStats& st = out.stats;
  const Schedule planned = plan(schedule);
  std::vector<Finding> static_findings;
  if (options.verify) detail::check_static_rules(planned, static_findings);
  if (!static_findings.empty()) verify_or_throw(planned);  // the whole report, in the verifier's words
  st.parse_plan_verify_ms = ms_since(t0);
  // A schedule that passes the static rules can be lowered; the hazard simulation,
  // most of verify's time, proves it meanwhile on a second thread.
  std::future<TimedVerdict> verdict;
  if (options.verify) {
    try {
      verdict = std::async(std::launch::async, [&planned] { return timed_verify(planned); });
    } catch (const std::system_error&) {  // no thread to be had: verify here
      const TimedVerdict v = timed_verify(planned);
      st.parse_plan_verify_ms += v.ms;
      reject_if_refused(v.report, planned);
    }
  }
  auto judged = [&](auto&& stages) {
    try {
      stages();
    } catch (...) {
      if (verdict.valid()) reject_if_refused(verdict.get().report, planned);
      throw;
    }
  };

  codegen::LoweredGemm lowered;
  codegen::Bytes hsaco;
  judged([&] {
    auto t = Clock::now();
    lowered = codegen::lower_gemm(planned, shape, name);
    if (options.keep_assembly || options.text_assembly) out.assembly = lowered.assembly();
    st.lower_ms = ms_since(t);
    hsaco = codegen::assemble_and_link(lowered.code, lowered.spec, out.assembly, options, st);
  });
  if (verdict.valid()) {
    const auto t = Clock::now();
    const TimedVerdict v = verdict.get();
    st.verify_wait_ms = ms_since(t);
    st.parse_plan_verify_ms += v.ms;
    reject_if_refused(v.report, planned);
  }

  out.kernel = Kernel::from_hsaco(std::move(hsaco), name);
  out.shape = shape;
  out.schedule = schedule;
  out.grid = grid_for(planned, shape);
  out.block = Dim3(uint32_t(planned.waves * gfx950::kWaveSize));
  codegen::fill_code_stats(lowered.code, lowered.spec, planned.waves, st);
  st.loop_instructions = lowered.loop_instructions;
  st.loop_iterations = lowered.loop_iterations;
  st.total_ms = ms_since(t0);
  if (options.use_cache) detail::compile_cache().insert(key, out);
  return out;
}

GemmKernel compile_json(const std::string& schedule_json, const GemmShape& shape, const CompileOptions& options) {
  if (!options.use_cache) return compile(parse_schedule(schedule_json), shape, options);
  // The same text compiled before needs no parse: the cache is keyed by the text.
  const auto t0 = Clock::now();
  const auto& e = options.epilogue;
  const std::string epilogue_key =
      e ? fmt::format("{}.{}.{}.{}", e->c ? to_string(*e->c) : "-", int(e->bias), to_string(e->bias_type),
                      to_string(e->activation))
        : "";
  const std::string key = fmt::format("json|{}|{}|{},{},{},{}|{}|{}{}{}|{}|{}", schedule_json, shape.to_string(), shape.lda,
                                      shape.ldb, shape.c_ld(), shape.c_in_ld(), options.kernel_name, options.verify,
                                      options.keep_assembly, options.text_assembly, epilogue_key,
                                      options.layout ? to_string(*options.layout) : "-");
  if (std::optional<GemmKernel> hit = detail::compile_cache().find(key)) {
    hit->stats.cached = true;
    hit->stats.total_ms = ms_since(t0);
    return *hit;
  }
  GemmKernel out = compile(parse_schedule(schedule_json), shape, options);
  detail::compile_cache().insert(key, out);
  return out;
}

}  // namespace cdna4
