// The timing model's table (docs/model.md): every shipped schedule at 4096^3
// and 8192^3 on the model device (only the modeled workgroups run), bf16 C, with
// llvm-mca-22's single-wave view of the same steady-state loop body beside it;
// then, given their directories, HipKittens' and AITER's gfx950 bf16 GEMM code
// objects through the same model next to their published MI355X figures:
//
//   bench_model [--hipkittens DIR] [--aiter DIR] [--sizes 4096,8192]
//   bench_model --calibration --hipkittens DIR [--aiter DIR]
//
// DIR as in bench_foreign (docs/emulator.md "Foreign kernels"; HipKittens built
// at M = N = K = each size). --calibration prints the calibration protocol's
// table (docs/model.md "Calibration protocol"; DIR then holds the per-size
// HipKittens bf16 and fp8 builds that protocol names).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cdna4/gemm.hpp"
#include "cdna4/runtime.hpp"
#include "cdna4/schedule.hpp"
#include "foreign_kernels.hpp"
#include "llvm_mca.hpp"
#include "model_calibration.hpp"
#include "runtime/model/parameters.hpp"
#include "steady_state.hpp"

namespace {

constexpr int kMcaIterations = 100;

struct Row {
  std::string name;
  std::optional<cdna4::Schedule> schedule;          // ours: llvm-mca runs on its loop
  std::optional<foreign::Published> published;      // calibration kernels
  std::function<cdna4::LaunchStats(cdna4::Device&, int64_t)> run;
};

std::string largest_stalls(const cdna4::ModelStallShares& s) {
  std::vector<std::pair<double, const char*>> shares{{s.vmcnt, "vmcnt"},         {s.lgkmcnt, "lgkmcnt"},
                                                     {s.barrier, "barrier"},     {s.mfma_dependency, "mfma_dep"},
                                                     {s.mfma_busy, "mfma_busy"}, {s.issue, "issue"},
                                                     {s.other, "other"}};
  std::sort(shares.rbegin(), shares.rend());
  return fmt::format("{} {:.0f}, {} {:.0f}", shares[0].second, 100 * shares[0].first, shares[1].second,
                     100 * shares[1].first);
}

// The two llvm-mca cells of a row: cycles per trip of one wave's loop, and the
// TFLOP/s if every SIMD of the device ran one such wave at that rate.
std::string llvm_mca_cells(const std::optional<std::string>& mca, const Row& row, int64_t size) {
  if (!row.schedule) return "- | -";
  if (!mca) return "llvm-mca-22 not found | llvm-mca-22 not found";
  cdna4::CompileOptions options;
  options.keep_assembly = true;
  std::optional<bench::LoopBody> loop;
  try {  // the row's own shape and bf16 C: an f32 C of 16384^2 is at the 1 GiB operand limit
    cdna4::GemmShape shape = cdna4::parse_shape(fmt::format("{0}x{0}x{0}", size));
    shape.out = cdna4::OutType::bf16;
    loop = bench::steady_loop_body(cdna4::compile(*row.schedule, shape, options).assembly);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    return fmt::format("error: {} | -", what.substr(0, what.find('\n')));
  }
  if (!loop) return "no loop | -";
  const bench::McaResult r = bench::run_llvm_mca(*mca, loop->text, kMcaIterations);
  if (!r.error.empty()) return fmt::format("{} | -", r.error);
  namespace param = cdna4::model::param;
  const double simds = param::kComputeUnits.value * param::kSimdsPerCu.value;
  const double seconds_per_trip = r.cycles_per_iteration * bench::kClocksPerMcaCycle / param::kClockHz.value;
  return fmt::format("{:.1f} | {:.0f}", r.cycles_per_iteration, loop->flops * simds / seconds_per_trip / 1e12);
}

cdna4::Buffer zeros(cdna4::Device& dev, size_t bytes) {  // the model does not read data
  cdna4::Buffer b = dev.alloc(bytes);
  b.fill_zero();
  return b;
}

// The foreign kernels break the M0-before-LDS-DMA wait-state rule
// (docs/emulator.md "Foreign kernels"): reported, not fatal.
cdna4::LaunchOptions reporting() {
  cdna4::LaunchOptions opt;
  opt.on_race = cdna4::OnRace::Report;
  return opt;
}

Row schedule_row(const std::string& path) {
  const cdna4::Schedule s = cdna4::load_schedule(path);
  return {s.name, s, std::nullopt, [s](cdna4::Device& dev, int64_t size) {
            cdna4::GemmShape shape;
            shape.m = shape.n = shape.k = size;
            shape.out = cdna4::OutType::bf16;
            const cdna4::GemmKernel k = cdna4::compile(s, shape);
            const size_t bytes = size_t(size * size * 2);
            std::vector<cdna4::Arg> args = {zeros(dev, bytes), zeros(dev, bytes), zeros(dev, bytes)};
            if (s.scaled) {  // E8M0 scales, one byte per 32 elements of K of each row of A and column of B
              args.push_back(zeros(dev, bytes / 32));
              args.push_back(zeros(dev, bytes / 32));
            }
            return dev.launch(k.kernel, k.grid, k.block, args);
          }};
}

Row hipkittens_row(const std::string& dir, const std::string& variant) {
  return {"HipKittens 256x256x64 " + variant, std::nullopt, foreign::kPublished[0],
          [dir, variant](cdna4::Device& dev, int64_t size) {
            const cdna4::Kernel kernel = cdna4::Kernel::from_file(foreign::hipkittens_file(dir, variant, size));
            const size_t bytes = size_t(size * size * 2);
            return foreign::launch_hipkittens(dev, kernel, size, zeros(dev, bytes), zeros(dev, bytes),
                                              zeros(dev, bytes), reporting());
          }};
}

Row aiter_row(const std::string& dir, const foreign::AiterKernel& ak) {
  return {std::string("AITER ") + ak.stem, std::nullopt, foreign::kPublished[1],
          [dir, ak](cdna4::Device& dev, int64_t size) {
            const cdna4::Kernel kernel = cdna4::Kernel::from_file(dir + "/" + ak.stem + ".co");
            const size_t bytes = size_t(size * size * 2);
            return foreign::launch_aiter(dev, kernel, ak, size, size, size, zeros(dev, bytes), zeros(dev, bytes),
                                         zeros(dev, bytes), zeros(dev, 16 * 64 * 4), true, reporting());
          }};
}

// The published MI355X GEMM points (docs/model.md "Calibration protocol"):
// HipKittens' analysis/bf16_gemm/mi350x/mi355x_bf16_gemm.json ("tflops" for
// kernel_{size}, "tflops_aiter" for AITER) and analysis/fp8_gemm/mi350x/
// mi355x_fp8_gemm.json ("tflops"), commit of foreign_kernels.hpp. The
// "tflops_aiter" figures time aiter's tgemm.mm, which runs hipBLASLt for a shape
// missing from aiter's tuned table, not the 256x256 code object: reference rows.
// AITER's own timings of that code object on gfx950 (256 CUs, fp32 D) come from
// its tuned table, aiter/configs/bf16_tuned_gemm.csv at
// 032c54e458e36cdc16f5473bb9bde5e0509d578d (M, N, K, tflops).
std::vector<bench::PublishedPoint> published_points(cdna4::Device& dev, const std::string& hk, const std::string& aiter) {
  using bench::Role;
  struct Figure {
    int64_t size;
    double bf16, fp8;
    Role bf16_role, fp8_role;
  };
  const Figure figures[] = {{1024, 139.48, 270.13, Role::calibration, Role::held_out},
                            {2048, 665.06, 1054.23, Role::held_out, Role::calibration},
                            {4096, 1412.85, 2741.41, Role::held_out, Role::held_out},
                            {8192, 1610.49, 3327.46, Role::calibration, Role::calibration},
                            {16384, 1571.49, 3377.75, Role::calibration, Role::calibration}};
  std::vector<bench::PublishedPoint> points;
  for (const Figure& f : figures) {
    const int64_t n = f.size;
    points.push_back({"HipKittens bf16 kernel_" + std::to_string(n), n, {n, n, n}, f.bf16, f.bf16_role, [&dev, hk, n] {
                        const auto k = cdna4::Kernel::from_file(hk + "/hipkittens_bf16_kernel_" + std::to_string(n) + ".hsaco");
                        const size_t bytes = size_t(n * n * 2);
                        return *foreign::launch_hipkittens(dev, k, n, zeros(dev, bytes), zeros(dev, bytes), zeros(dev, bytes),
                                                           reporting(), foreign::hipkittens_bf16_tile(n))
                                    .model;
                      }, {}, {}});
  }
  // The fp8 figures time FP8_4wave (HipKittens' analysis/README.md, "FP8
  // GEMM"): its own kernel per size (64x64 tiles at 1024, 128x128 at 2048,
  // 256x256 above). FP8_8wave (256x256 at every size) is another kernel: a
  // reference row beside each.
  for (const Figure& f : figures) {
    const int64_t n = f.size;
    const size_t bytes = size_t(n * n);
    points.push_back({"HipKittens fp8 FP8_4wave", n, {n, n, n}, f.fp8, f.fp8_role, [&dev, hk, n, bytes] {
                        const auto k = cdna4::Kernel::from_file(foreign::hipkittens_fp8_4wave_file(hk, n));
                        return *foreign::launch_hipkittens_fp8_4wave(dev, k, n, zeros(dev, bytes), zeros(dev, bytes),
                                                                     zeros(dev, 2 * bytes), reporting())
                                    .model;
                      }, {}, {}});
    points.push_back({"HipKittens fp8 FP8_8wave (not the timed kernel)", n, {n, n, n}, f.fp8, Role::reference,
                      [&dev, hk, n, bytes] {
                        const auto k = cdna4::Kernel::from_file(foreign::hipkittens_fp8_file(hk, n));
                        return *foreign::launch_hipkittens_fp8(dev, k, n, n, zeros(dev, bytes), zeros(dev, bytes),
                                                               zeros(dev, 2 * bytes), reporting())
                                    .model;
                      }, {}, {}});
  }
  if (aiter.empty()) return points;
  const foreign::AiterKernel& ak = foreign::kAiterKernels[0];
  auto aiter_point = [&](bench::Shape s, double tflops, Role role, bool out_bf16) {
    const std::string name = std::string("AITER ") + ak.stem + (role == Role::reference ? " (tgemm.mm)" : "");
    points.push_back({name, s.m, s, tflops, role, [&dev, aiter, ak, s, out_bf16] {
                        const auto k = cdna4::Kernel::from_file(aiter + "/" + ak.stem + ".co");
                        return *foreign::launch_aiter(dev, k, ak, s.m, s.n, s.k, zeros(dev, size_t(s.m * s.k * 2)),
                                                      zeros(dev, size_t(s.n * s.k * 2)),
                                                      zeros(dev, size_t(s.m * s.n * (out_bf16 ? 2 : 4))),
                                                      zeros(dev, 16 * 64 * 4), out_bf16, reporting())
                                    .model;
                      }, {}, {}});
  };
  aiter_point({4096, 4096, 4096}, 1113.60, Role::reference, true);
  aiter_point({8192, 8192, 8192}, 1590.79, Role::reference, true);
  for (auto [shape, tflops] : {std::pair<bench::Shape, double>{{2048, 6144, 2048}, 877.28},
                               {{4096, 6144, 3072}, 1044.91},
                               {{8192, 6144, 3072}, 1261.92},
                               {{16384, 3072, 6144}, 1378.54}})
    aiter_point(shape, tflops, Role::held_out, false);
  return points;
}

std::string published_cells(const Row& row, int64_t size, double tflops) {
  if (!row.published) return "- | -";
  const double pub = size == 4096 ? row.published->at_4096 : size == 8192 ? row.published->at_8192 : 0;
  if (pub == 0) return "- | -";
  return fmt::format("{:.0f} | {:+.1f}%", pub, 100 * (tflops - pub) / pub);
}

}  // namespace

int main(int argc, char** argv) {
  std::string hk_dir, aiter_dir;
  std::vector<int64_t> sizes{4096, 8192};
  bool calibration = false, sizes_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--calibration") {
      calibration = true;
    } else if ((arg == "--hipkittens" || arg == "--aiter") && i + 1 < argc) {
      (arg == "--hipkittens" ? hk_dir : aiter_dir) = argv[++i];
    } else if (arg == "--sizes" && i + 1 < argc) {
      sizes.clear();
      sizes_given = true;
      for (char* p = argv[++i]; *p;) {
        sizes.push_back(std::strtoll(p, &p, 10));
        if (*p == ',') ++p;
      }
    } else {
      fmt::print(stderr, "usage: bench_model [--hipkittens DIR] [--aiter DIR] [--sizes 4096,8192]\n"
                         "       bench_model --calibration --hipkittens DIR [--aiter DIR]\n");
      return 2;
    }
  }
  if (calibration) {
    if (hk_dir.empty()) {
      fmt::print(stderr, "bench_model --calibration needs --hipkittens DIR\n");
      return 2;
    }
    cdna4::EmulatorConfig config;
    config.model_only = true;
    config.instant_completion = true;
    config.threads = 1;
    cdna4::Device device = cdna4::Device::model(config);
    std::vector<bench::PublishedPoint> points = published_points(device, hk_dir, aiter_dir);
    if (sizes_given)  // a quicker look at some sizes (the fit then uses only their calibration points)
      std::erase_if(points, [&](const bench::PublishedPoint& p) { return std::find(sizes.begin(), sizes.end(), p.size) == sizes.end(); });
    bench::print_calibration(points);
    return 0;
  }
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(CDNA4_SOURCE_DIR) + "/schedules"))
    if (entry.path().extension() == ".json" && entry.path().filename() != "schedule.schema.json")
      paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  std::vector<Row> rows;
  for (const std::string& path : paths) rows.push_back(schedule_row(path));
  if (!hk_dir.empty())
    for (const char* variant : {"16x32", "32x16"}) rows.push_back(hipkittens_row(hk_dir, variant));
  if (!aiter_dir.empty())
    for (const foreign::AiterKernel& ak : foreign::kAiterKernels)
      if (ak.tile_n == 256) rows.push_back(aiter_row(aiter_dir, ak));

  cdna4::EmulatorConfig config;
  config.model_only = true;
  config.instant_completion = true;
  config.threads = 1;
  config.model_timeline = true;  // one CU's slices: the steady-state MFMA utilisation
  cdna4::Device device = cdna4::Device::model(config);
  const std::optional<std::string> mca = bench::find_llvm_mca();
  fmt::print("modeled MI355X GEMM (each schedule's operand types), bf16 C (docs/model.md); model-only runs on 1 host thread\n");
  fmt::print("llvm-mca: {} on the steady-state loop body, {} iterations (docs/model.md \"llvm-mca column\")\n\n",
             mca.value_or("llvm-mca-22 not found"), kMcaIterations);
  fmt::print("| kernel | shape | modeled TFLOP/s | published TFLOP/s | error | MFMA util. | steady-state MFMA util. "
             "(one CU) | top stalls (% of wave time) | L2 hits | bound | modeling s | llvm-mca cycles/iter (1 wave) | "
             "llvm-mca-implied TFLOP/s |\n");
  fmt::print("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int64_t size : sizes)
    for (const Row& row : rows) {
      const auto t0 = std::chrono::steady_clock::now();
      std::string cells;
      try {
        const cdna4::ModelReport m = *row.run(device, size).model;
        const double tflops = 2.0 * double(size) * size * size / m.seconds / 1e12;
        const cdna4::tools::TimelineWindow w = cdna4::tools::steady_state_window(m);
        const std::string steady =
            w.steady_state ? fmt::format("{:.1f}%", 100 * cdna4::tools::steady_state_mfma_utilization(m, w)) : "-";
        cells = fmt::format("{:.0f} | {} | {:.1f}% | {} | {} | {:.0f}% | {}", tflops, published_cells(row, size, tflops),
                            100 * m.mfma_utilization, steady, largest_stalls(m.stalls), 100 * m.l2_hit_rate, m.bound);
      } catch (const std::exception& e) {
        const std::string what = e.what();
        cells = fmt::format("error: {} | | | | | | | |", what.substr(0, what.find('\n')));
      }
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      fmt::print("| {} | {}^3 | {} | {:.2f} | {} |\n", row.name, size, cells, wall, llvm_mca_cells(mca, row, size));
      std::fflush(stdout);
    }
}
