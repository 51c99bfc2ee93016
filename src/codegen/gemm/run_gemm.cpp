// One GEMM on a device: stage the problem, upload, launch, download C.
#include <array>
#include <cstdint>

#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "cdna4/gemm.hpp"
#include "codegen/device_upload.hpp"

namespace cdna4 {
namespace {

// What the kernel's arguments describe, compared as the kernel resolves them.
bool same_arguments(const GemmShape& x, Layout lx, const GemmShape& y, Layout ly) {
  const auto of = [](const GemmShape& s, Layout l) {
    return std::array<int64_t, 12>{s.m, s.n, s.k, s.batch, s.ld(l, Operand::a), s.ld(l, Operand::b),
                                   s.stride(l, Operand::a), s.stride(l, Operand::b), s.c_ld(), s.c_in_ld(),
                                   s.c_stride(), int64_t(*s.out)};
  };
  return lx == ly && of(x, lx) == of(y, ly);
}

}  // namespace

size_t packed_bytes(DataType type, int64_t count) { return size_t((count * element_bits(type) + 7) / 8); }

GemmRun run_gemm(Device& device, const GemmKernel& kernel, const GemmProblem& problem, const LaunchOptions& launch) {
  const Schedule& schedule = kernel.schedule;
  const StagedProblem staged = stage(schedule, problem);
  const GemmProblem& p = staged.problem();
  const GemmShape& shape = p.shape;
  if (!same_arguments(shape, p.layout, kernel.shape, schedule.layout))
    throw Error(fmt::format("run_gemm: kernel {} was compiled for {} (layout {}); the problem is {} (layout {}) as the "
                            "kernel reads it",
                            kernel.kernel.name(), kernel.shape.to_string(), to_string(schedule.layout),
                            shape.to_string(), to_string(p.layout)));
  GemmRun run;
  run.compile = kernel.stats;
  const int64_t c_elements = (shape.batch - 1) * shape.c_stride() + (shape.m - 1) * shape.c_ld() + shape.n;
  const size_t c_bytes = size_t(c_elements) * size_t(element_bytes(*shape.out));
  Buffer da = codegen::upload(device, p.a), db = codegen::upload(device, p.b), dc = device.alloc(c_bytes);
  dc.fill_zero();
  std::vector<Arg> args = {da, db, dc};
  Buffer sa, sb, c_in, bias;
  if (schedule.scaled) {
    sa = codegen::upload(device, p.scale_a);
    sb = codegen::upload(device, p.scale_b);
    args.insert(args.end(), {sa, sb});
  }
  if (const std::optional<Epilogue>& epi = schedule.epilogue) {  // [C input], [bias], alpha, [beta]
    if (epi->c) {
      c_in = codegen::upload(device, p.c);
      args.push_back(c_in);
    }
    if (epi->bias != BiasDim::none) {
      bias = codegen::upload(device, p.bias);
      args.push_back(bias);
    }
    args.push_back(p.alpha);
    if (epi->c) args.push_back(p.beta);
  }
  run.launch = device.launch(kernel.kernel, kernel.grid, kernel.block, args, launch);
  run.c.resize(c_bytes);
  dc.download(run.c.data(), run.c.size());
  return run;
}

GemmRun run_gemm(Device& device, const Schedule& schedule, const GemmProblem& problem,
                 const CompileOptions& compile_options, const LaunchOptions& launch) {
  if (compile_options.layout)
    throw Error("run_gemm: CompileOptions::layout is set; GemmProblem::layout says how A and B are stored, and the "
                "staged problem decides the kernel's layout");
  Schedule with_epilogue = schedule;
  if (compile_options.epilogue) with_epilogue.epilogue = compile_options.epilogue;
  // Staged first: buffers that do not fit the problem are refused before any compile.
  const StagedProblem staged = stage(with_epilogue, problem);
  CompileOptions options = compile_options;
  options.layout = staged.problem().layout;
  const GemmKernel kernel = compile(schedule, staged.problem().shape, options);
  return run_gemm(device, kernel, staged.problem(), launch);
}

}  // namespace cdna4
