// The timing model's calibration table: HipKittens' and AITER's gfx950 bf16
// GEMM code objects through the model device at 4096^3 and 8192^3, next to
// their published MI355X figures, and our best shipped schedules for the
// ordering (docs/model.md, "Calibration"):
//
//   bench_calibration --hipkittens DIR --aiter DIR [--sizes 4096,8192]
//
// DIR as in bench_foreign (HipKittens built at M = N = K = 4096 and 8192).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "cdna4/gemm.hpp"
#include "cdna4/runtime.hpp"
#include "cdna4/schedule.hpp"
#include "foreign_kernels.hpp"

namespace {

struct Row {
  std::string name;
  double published_4096 = 0, published_8192 = 0;  // 0: none
  std::function<cdna4::LaunchStats(cdna4::Device&, int64_t)> run;
};

std::string largest_stalls(const cdna4::ModelStallShares& s) {
  std::vector<std::pair<double, const char*>> shares{{s.vmcnt, "vmcnt"},         {s.lgkmcnt, "lgkmcnt"},
                                                     {s.barrier, "barrier"},     {s.mfma_dependency, "mfma_dep"},
                                                     {s.mfma_busy, "mfma_busy"}, {s.issue, "issue"},
                                                     {s.other, "other"}};
  std::sort(shares.rbegin(), shares.rend());
  return fmt::format("{} {:.0f}, {} {:.0f}, {} {:.0f}", shares[0].second, 100 * shares[0].first, shares[1].second,
                     100 * shares[1].first, shares[2].second, 100 * shares[2].first);
}

double published(const Row& r, int64_t size) { return size == 4096 ? r.published_4096 : r.published_8192; }

// The foreign kernels break the M0-before-LDS-DMA wait-state rule
// (docs/emulator.md, "Foreign kernels"): reported, not fatal.
cdna4::LaunchOptions reporting() {
  cdna4::LaunchOptions opt;
  opt.on_race = cdna4::OnRace::Report;
  return opt;
}

cdna4::Buffer zeros(cdna4::Device& dev, size_t bytes) {
  cdna4::Buffer b = dev.alloc(bytes);
  b.fill_zero();
  return b;
}

Row hipkittens_row(const std::string& dir, const std::string& variant) {
  const foreign::Published& p = foreign::kPublished[0];
  return {"HipKittens 256x256x64 " + variant, p.at_4096, p.at_8192, [dir, variant](cdna4::Device& dev, int64_t size) {
            const cdna4::Kernel kernel = cdna4::Kernel::from_file(foreign::hipkittens_file(dir, variant, size));
            const size_t bytes = size_t(size * size * 2);
            return foreign::launch_hipkittens(dev, kernel, size, zeros(dev, bytes), zeros(dev, bytes),
                                              zeros(dev, bytes), reporting());
          }};
}

Row aiter_row(const std::string& dir, const foreign::AiterKernel& ak) {
  const foreign::Published& p = foreign::kPublished[1];
  return {std::string("AITER ") + ak.stem, p.at_4096, p.at_8192, [dir, ak](cdna4::Device& dev, int64_t size) {
            const cdna4::Kernel kernel = cdna4::Kernel::from_file(dir + "/" + ak.stem + ".co");
            const size_t bytes = size_t(size * size * 2);
            cdna4::Buffer sema = zeros(dev, 16 * 64 * 4);
            return foreign::launch_aiter(dev, kernel, ak, size, size, size, zeros(dev, bytes), zeros(dev, bytes),
                                         zeros(dev, bytes), sema, true, reporting());
          }};
}

Row schedule_row(const std::string& stem) {
  return {"ours " + stem, 0, 0, [stem](cdna4::Device& dev, int64_t size) {
            const cdna4::Schedule s = cdna4::load_schedule(std::string(CDNA4_SOURCE_DIR) + "/schedules/" + stem + ".json");
            cdna4::GemmShape shape{size, size, size};
            shape.out = cdna4::OutType::bf16;
            const cdna4::GemmKernel k = cdna4::compile(s, shape);
            const size_t bytes = size_t(size * size * 2);
            return dev.launch(k.kernel, k.grid, k.block, {zeros(dev, bytes), zeros(dev, bytes), zeros(dev, bytes)}, {});
          }};
}

}  // namespace

int main(int argc, char** argv) {
  std::string hk_dir, aiter_dir;
  std::vector<int64_t> sizes{4096, 8192};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--hipkittens" || arg == "--aiter") && i + 1 < argc) {
      (arg == "--hipkittens" ? hk_dir : aiter_dir) = argv[++i];
    } else if (arg == "--sizes" && i + 1 < argc) {
      sizes.clear();
      for (char* p = argv[++i]; *p;) {
        sizes.push_back(std::strtoll(p, &p, 10));
        if (*p == ',') ++p;
      }
    } else {
      fmt::print(stderr, "usage: bench_calibration [--hipkittens DIR] [--aiter DIR] [--sizes 4096,8192]\n");
      return 2;
    }
  }
  std::vector<Row> rows;
  if (!hk_dir.empty())
    for (const char* variant : {"16x32", "32x16"}) rows.push_back(hipkittens_row(hk_dir, variant));
  if (!aiter_dir.empty())
    for (const foreign::AiterKernel& ak : foreign::kAiterKernels)
      if (ak.tile_n == 256) rows.push_back(aiter_row(aiter_dir, ak));
  for (const char* stem : {"baseline_256x256x64_w8", "pingpong_256x256x64_w8", "pingpong2_256x128x64_w8"})
    rows.push_back(schedule_row(stem));

  cdna4::EmulatorConfig config;
  config.model_only = true;
  config.instant_completion = true;
  config.threads = 1;
  cdna4::Device device = cdna4::Device::model(config);
  fmt::print("modeled MI355X bf16 GEMM, bf16 C (docs/model.md); model-only runs on 1 host thread\n\n");
  fmt::print("| kernel | shape | modeled TFLOP/s | published TFLOP/s | error | MFMA util. | largest stalls (% of wave time) | "
             "L2 hits | bound | WG/CU x rounds | modeling s |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int64_t size : sizes)
    for (const Row& row : rows) {
      const auto t0 = std::chrono::steady_clock::now();
      std::string cells;
      try {
        const cdna4::LaunchStats stats = row.run(device, size);
        const cdna4::ModelReport& m = *stats.model;
        const double tflops = 2.0 * double(size) * size * size / m.seconds / 1e12, pub = published(row, size);
        cells = fmt::format("{:.0f} | {} | {} | {:.1f}% | {} | {:.0f}% | {} | {} x {}", tflops, pub ? fmt::format("{:.0f}", pub) : "-",
                            pub ? fmt::format("{:+.1f}%", 100 * (tflops - pub) / pub) : "-",
                            100 * m.mfma_utilization, largest_stalls(m.stalls), 100 * m.l2_hit_rate, m.bound,
                            m.workgroups_per_cu, m.rounds);
      } catch (const std::exception& e) {
        const std::string what = e.what();
        cells = fmt::format("error: {} | | | | | | |", what.substr(0, what.find('\n')));
      }
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      fmt::print("| {} | {}^3 | {} | {:.2f} |\n", row.name, size, cells, wall);
    }
}
