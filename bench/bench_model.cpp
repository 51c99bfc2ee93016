// The timing model's table: every shipped schedule at 4096^3 and 8192^3 on the
// model device (only the modeled workgroups run): modeled TFLOP/s, MFMA
// utilisation, the largest stall share, how long modeling took, and beside them
// llvm-mca-22's single-wave view of the same steady-state loop body.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cdna4/gemm.hpp"
#include "cdna4/runtime.hpp"
#include "cdna4/schedule.hpp"
#include "llvm_mca.hpp"
#include "runtime/model/parameters.hpp"

namespace {

std::pair<const char*, double> top_stall(const cdna4::ModelStallShares& s) {
  const std::pair<const char*, double> shares[] = {{"vmcnt", s.vmcnt},         {"lgkmcnt", s.lgkmcnt},
                                                   {"barrier", s.barrier},     {"mfma_dependency", s.mfma_dependency},
                                                   {"mfma_busy", s.mfma_busy}, {"issue", s.issue},
                                                   {"other", s.other}};
  return *std::max_element(std::begin(shares), std::end(shares),
                           [](auto& a, auto& b) { return a.second < b.second; });
}

constexpr int kMcaIterations = 100;

// The two llvm-mca cells of a row: cycles per trip of one wave's loop, and the
// TFLOP/s if every SIMD of the device ran one such wave at that rate.
std::string llvm_mca_cells(const std::optional<std::string>& mca, const cdna4::Schedule& schedule, int64_t size) {
  if (!mca) return "llvm-mca-22 not found | llvm-mca-22 not found";
  cdna4::CompileOptions options;
  options.keep_assembly = true;
  const cdna4::GemmKernel kernel =
      cdna4::compile(schedule, cdna4::parse_shape(fmt::format("{0}x{0}x{0}", size)), options);
  const std::optional<bench::LoopBody> loop = bench::steady_loop_body(kernel.assembly);
  if (!loop) return "no loop | -";
  const bench::McaResult r = bench::run_llvm_mca(*mca, loop->text, kMcaIterations);
  if (!r.error.empty()) return fmt::format("{} | -", r.error);
  namespace param = cdna4::model::param;
  const double simds = param::kComputeUnits.value * param::kSimdsPerCu.value;
  const double seconds_per_trip = r.cycles_per_iteration * bench::kClocksPerMcaCycle / param::kClockHz.value;
  return fmt::format("{:.1f} | {:.0f}", r.cycles_per_iteration, loop->flops * simds / seconds_per_trip / 1e12);
}

}  // namespace

int main() {
  std::vector<std::string> schedules;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(CDNA4_SOURCE_DIR) + "/schedules"))
    if (entry.path().extension() == ".json" && entry.path().filename() != "schedule.schema.json")
      schedules.push_back(entry.path().string());
  std::sort(schedules.begin(), schedules.end());

  cdna4::EmulatorConfig config;
  config.model_only = true;
  config.instant_completion = true;
  config.threads = 1;
  cdna4::Device device = cdna4::Device::model(config);
  const std::optional<std::string> mca = bench::find_llvm_mca();
  fmt::print("modeled MI355X bf16 GEMM (fp32 C), docs/model.md; model-only runs on 1 host thread\n");
  fmt::print("llvm-mca: {} on the steady-state loop body, {} iterations (docs/model.md \"llvm-mca column\")\n\n",
             mca.value_or("llvm-mca-22 not found"), kMcaIterations);
  fmt::print("| schedule | shape | modeled TFLOP/s | modeled time | MFMA util. | top stall | modeling s "
             "| llvm-mca cycles/iter (1 wave) | llvm-mca-implied TFLOP/s |\n");
  fmt::print("|---|---|---|---|---|---|---|---|---|\n");
  for (int64_t size : {4096, 8192}) {
    std::vector<uint16_t> a(size_t(size * size)), b(size_t(size * size));  // zeros: the model does not read data
    for (const std::string& path : schedules) {
      const cdna4::Schedule schedule = cdna4::load_schedule(path);
      const auto t0 = std::chrono::steady_clock::now();
      const cdna4::GemmRun run = cdna4::run_gemm(device, schedule, size, size, size, a, b, cdna4::OutType::f32);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const cdna4::ModelReport& m = *run.launch.model;
      const auto [stall, share] = top_stall(m.stalls);
      fmt::print("| {} | {}^3 | {:.0f} | {:.1f} us | {:.1f}% | {} {:.1f}% | {:.2f} | {} |\n", schedule.name, size,
                 2.0 * double(size) * size * size / m.seconds / 1e12, m.seconds * 1e6, 100 * m.mfma_utilization,
                 stall, 100 * share, wall, llvm_mca_cells(mca, schedule, size));
    }
  }
}
