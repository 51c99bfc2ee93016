// run_gemm's host side per operand layout, and compile time per epilogue.
//
// Host overhead = a run_gemm call's wall time minus the launch's own time
// (LaunchStats::seconds) and its compile (cached here): the uploads, downloads
// and any staging copy. With A and B passed through as stored, it should not
// depend on the layout. `--python-reference` prints one line of the nn case
// for bench/bench_python.py to compare cdna4jit.gemm() with.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cdna4/gemm.hpp"
#include "cdna4/runtime.hpp"
#include "cdna4/schedule.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// The m x n x k problem on packed A and B stored as `layout` says, C in fp32.
cdna4::GemmProblem problem(int64_t m, int64_t n, int64_t k, std::span<const uint8_t> a, std::span<const uint8_t> b,
                           cdna4::Layout layout) {
  cdna4::GemmProblem p;
  p.shape.m = m;
  p.shape.n = n;
  p.shape.k = k;
  p.shape.out = cdna4::OutType::f32;
  p.layout = layout;
  p.a = a;
  p.b = b;
  return p;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<uint8_t> bf16_ones(size_t count) {
  std::vector<uint8_t> out(count * 2);
  for (size_t i = 0; i < count; ++i) {
    out[2 * i] = 0x80;  // 0x3f80 = 1.0
    out[2 * i + 1] = 0x3f;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const bool python_reference = argc > 1 && std::string(argv[1]) == "--python-reference";
  const std::string dir = CDNA4_SOURCE_DIR "/schedules/";
  const cdna4::Schedule s = cdna4::load_schedule(dir + "baseline_256x256x64_w8.json");
  cdna4::EmulatorConfig config;
  config.instant_completion = true;
  cdna4::Device device = cdna4::Device::emulator(config);
  const int64_t m = 512, n = 512, k = 512;
  const auto a = bf16_ones(size_t(m * k)), b = bf16_ones(size_t(k * n));
  const int repeats = argc > 1 && !python_reference ? std::max(3, std::atoi(argv[1])) : 9;
  if (python_reference) {  // wall ms of one nn call, median of `repeats`
    std::vector<double> wall;
    for (int r = 0; r < repeats; ++r) {
      const auto t0 = Clock::now();
      cdna4::run_gemm(device, s, problem(m, n, k, a, b, cdna4::Layout::nn));
      wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    fmt::print("run_gemm_ms {:.3f}\n", median(wall));
    return 0;
  }

  fmt::print("run_gemm host side, {}x{}x{} bf16 on the emulator (instant completion), median of {} calls\n", m, n, k,
             repeats);
  fmt::print("{:<8} {:>10} {:>10} {:>14}\n", "layout", "wall ms", "kernel ms", "host ms");
  for (cdna4::Layout layout : {cdna4::Layout::nn, cdna4::Layout::nt, cdna4::Layout::tn, cdna4::Layout::tt}) {
    cdna4::run_gemm(device, s, problem(m, n, k, a, b, layout));  // compile once
    std::vector<double> wall, kernel, host;
    for (int r = 0; r < repeats; ++r) {
      const auto t0 = Clock::now();
      const cdna4::GemmRun run = cdna4::run_gemm(device, s, problem(m, n, k, a, b, layout));
      const double w = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      wall.push_back(w);
      kernel.push_back(run.launch.seconds * 1e3);
      host.push_back(w - run.launch.seconds * 1e3 - run.compile.total_ms);
    }
    fmt::print("{:<8} {:>10.3f} {:>10.3f} {:>14.3f}\n", cdna4::to_string(layout), median(wall), median(kernel),
               median(host));
  }

  struct Variant {
    const char* name;
    cdna4::Epilogue e;
  };
  const Variant variants[] = {
      {"none", {}},
      {"C f32", {cdna4::DataType::f32}},
      {"bias n", {std::nullopt, cdna4::BiasDim::n}},
      {"bias m relu", {std::nullopt, cdna4::BiasDim::m, cdna4::DataType::f32, cdna4::Activation::relu}},
      {"C bias n gelu", {cdna4::DataType::bf16, cdna4::BiasDim::n, cdna4::DataType::f32, cdna4::Activation::gelu}},
      {"C bias m silu", {cdna4::DataType::f16, cdna4::BiasDim::m, cdna4::DataType::bf16, cdna4::Activation::silu}},
  };
  // Every shipped 256x256 schedule; rounds go over all of them, so a slow spell
  // of the machine is shared by every cell.
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json" && e.path().stem().string().find("_256x256x") != std::string::npos)
      names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  std::vector<cdna4::Schedule> schedules;
  for (const auto& name : names) schedules.push_back(cdna4::load_schedule(dir + name + ".json"));
  cdna4::GemmShape shape;
  shape.m = shape.n = shape.k = 4096;
  shape.out = cdna4::OutType::bf16;
  const size_t nv = std::size(variants);
  std::vector<std::vector<std::vector<double>>> ms(schedules.size(), std::vector<std::vector<double>>(nv));
  auto compile_ms = [&](size_t i, size_t j) {
    cdna4::CompileOptions options;
    options.use_cache = false;
    options.epilogue = variants[j].e;
    return cdna4::compile(schedules[i], shape, options).stats.total_ms;
  };
  for (size_t i = 0; i < schedules.size(); ++i)
    for (size_t j = 0; j < nv; ++j) compile_ms(i, j);  // templates are made once per process
  for (int r = 0; r < repeats; ++r)
    for (size_t i = 0; i < schedules.size(); ++i)
      for (size_t j = 0; j < nv; ++j) ms[i][j].push_back(compile_ms(i, j));

  fmt::print("\ncompile time per fused epilogue, cold (no cache), ms p50 of {} rounds (4096^3, bf16 D)\n", repeats);
  fmt::print("{:<32}", "schedule");
  for (const auto& v : variants) fmt::print(" {:>13}", v.name);
  fmt::print("\n");
  double worst = 0;
  std::string worst_cell;
  for (size_t i = 0; i < schedules.size(); ++i) {
    fmt::print("{:<32}", names[i]);
    for (size_t j = 0; j < nv; ++j) {
      const double p50 = median(ms[i][j]);
      fmt::print(" {:>13.3f}", p50);
      if (p50 > worst) worst = p50, worst_cell = names[i] + " / " + variants[j].name;
    }
    fmt::print("\n");
  }
  fmt::print("every 256x256 schedule and epilogue: cold p50 <= 3 ms   {}   (slowest: {} at {:.3f} ms)\n",
             worst <= 3 ? "met" : "MISSED", worst_cell, worst);
  return 0;
}
