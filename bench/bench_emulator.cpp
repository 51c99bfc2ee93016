// Emulator throughput: emulated MFMA multiply-accumulates per second on an
// MFMA-bound kernel and on a generated 1024^3 bf16 GEMM, next to a plain
// native fp32 GEMM loop on this machine; what each emulator feature costs; the
// generated GEMMs and, given their code objects (--hipkittens DIR, --aiter DIR,
// docs/emulator.md "Foreign kernels"), foreign ones beside OpenBLAS sgemm.
//
//   bench_emulator [--hipkittens DIR] [--aiter DIR]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "cdna4/code_object.hpp"
#include "cdna4/gemm.hpp"
#include "cdna4/reference.hpp"
#include "cdna4/runtime.hpp"
#include "cdna4/schedule.hpp"
#include "codegen/assembler.hpp"
#include "codegen/kernel_descriptor.hpp"
#include "foreign_kernels.hpp"
#include "runtime/emulator/emulator.hpp"
#include "runtime/emulator/mfma_arithmetic.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// A square n x n x n problem on packed A and B (layout nn), C in fp32.
cdna4::GemmProblem square_problem(int64_t n, std::span<const uint8_t> a, std::span<const uint8_t> b) {
  cdna4::GemmProblem p;
  p.shape.m = p.shape.n = p.shape.k = n;
  p.shape.out = cdna4::OutType::f32;
  p.a = a;
  p.b = b;
  return p;
}

std::span<const uint8_t> bytes_of(const std::vector<uint16_t>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * 2};
}

// Each wave: `iterations` x (16 MFMAs into 16 accumulator tiles, plus loop overhead).
std::string mfma_loop_kernel(const char* mnemonic, int acc_regs, int tiles) {
  std::string body = R"(
  s_load_dword s4, s[0:1], 0
  s_waitcnt lgkmcnt(0)
  v_cvt_f32_u32 v1, v0
  v_cvt_pk_bf16_f32 v2, v1, v1
  v_mov_b32 v3, v2
  v_mov_b32 v4, v2
  v_mov_b32 v5, v2
  v_mov_b32 v6, v2
  v_mov_b32 v7, v2
  v_mov_b32 v8, v2
  v_mov_b32 v9, v2
loop:
)";
  for (int t = 0; t < tiles; ++t)
    body += fmt::format("  {} a[{}:{}], v[2:5], v[6:9], a[{}:{}]\n", mnemonic, t * acc_regs, t * acc_regs + acc_regs - 1,
                        t * acc_regs, t * acc_regs + acc_regs - 1);
  body += R"(
  s_sub_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 0
  s_cbranch_scc1 loop
  s_endpgm
)";
  cdna4::codegen::KernelSpec spec;
  spec.name = "k";
  spec.vgprs = 16;
  spec.agprs = acc_regs * tiles;
  spec.sgprs = 16;
  spec.workgroup_size = 256;
  spec.args = {{"iterations", cdna4::codegen::KernelArgSpec::Kind::by_value, 4}};
  return cdna4::codegen::kernel_prologue_directives(spec) + body + cdna4::codegen::kernel_epilogue_directives(spec);
}

struct Sample {
  double macs_per_second;
  double seconds;
};

Sample emulate(const cdna4::CodeObject& code, const cdna4::KernelInfo& k, uint32_t iterations, uint32_t grid,
               bool instant, unsigned threads) {
  cdna4::emu::Dispatch d;
  d.grid[0] = grid;
  d.block[0] = 256;
  d.kernarg.resize(8);
  std::memcpy(d.kernarg.data(), &iterations, 4);
  cdna4::emu::EmulatorOptions o;
  o.instant_completion = instant;
  o.threads = threads;
  double best = 1e30;
  uint64_t macs = 0;
  for (int rep = 0; rep < 3; ++rep) {
    auto stats = cdna4::emu::run(code, k, d, o);
    best = std::min(best, stats.seconds);
    macs = stats.mfma_macs;
  }
  return {double(macs) / best, best};
}

// Plain fp32 GEMM C += A * B (row-major n x n), i-k-j order, cache-blocked over
// k and j so a block of B stays in L2; single thread, optimised at -O2.
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((noinline, optimize("O2")))
#else
__attribute__((noinline))
#endif
void native_gemm(int n, const float* a, const float* b, float* c) {
  constexpr int kBlockK = 128, kBlockJ = 512;
  for (int k0 = 0; k0 < n; k0 += kBlockK)
    for (int j0 = 0; j0 < n; j0 += kBlockJ) {
      const int k1 = std::min(n, k0 + kBlockK), j1 = std::min(n, j0 + kBlockJ);
      for (int i = 0; i < n; ++i) {
        float* ci = c + size_t(i) * n;
        for (int k = k0; k < k1; ++k) {
          const float aik = a[size_t(i) * n + k];
          const float* bk = b + size_t(k) * n;
          for (int j = j0; j < j1; ++j) ci[j] += aik * bk[j];
        }
      }
    }
}

// Best of `reps` runs of the native GEMM on a and b (n x n); c gets the result.
Sample native(int n, const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c, int reps) {
  double best = 1e30;
  for (int rep = 0; rep < reps; ++rep) {
    std::fill(c.begin(), c.end(), 0.0f);
    auto t0 = Clock::now();
    native_gemm(n, a.data(), b.data(), c.data());
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return {double(n) * n * n / best, best};
}

// Small integers: exact in bf16, and every GEMM sum is exact in fp32, so the
// emulated result must equal the native one bit for bit.
std::vector<float> small_integers(size_t count, int modulus, int offset) {
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = float(int((i * 2654435761u >> 7) % size_t(modulus)) - offset);
  return v;
}

std::vector<uint16_t> to_bf16(const std::vector<float>& v) {
  std::vector<uint16_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &v[i], 4);
    out[i] = uint16_t(bits >> 16);
  }
  return out;
}

struct GemmSample {
  double macs_per_second;  // emulated MFMA MACs / kernel seconds
  double kernel_seconds;
  double wall_seconds;     // whole run_gemm call: staging, upload, launch, download
  bool exact;
};

GemmSample emulate_gemm(const cdna4::Schedule& schedule, int n, const std::vector<uint16_t>& a,
                        const std::vector<uint16_t>& b, const std::vector<float>& want, bool instant,
                        unsigned threads) {
  cdna4::EmulatorConfig config;
  config.instant_completion = instant;
  config.threads = threads;
  cdna4::Device device = cdna4::Device::emulator(config);
  GemmSample best{0, 1e30, 1e30, true};
  for (int rep = 0; rep < 5; ++rep) {  // best of 5: a 1024^3 instant kernel is about 15 ms
    auto t0 = Clock::now();
    cdna4::GemmRun run = cdna4::run_gemm(device, schedule, square_problem(n, bytes_of(a), bytes_of(b)));
    double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    best.exact = best.exact && std::memcmp(run.c.data(), want.data(), want.size() * 4) == 0;
    if (run.launch.seconds < best.kernel_seconds) {
      best.kernel_seconds = run.launch.seconds;
      best.macs_per_second = double(run.launch.mfma_macs) / run.launch.seconds;
    }
    best.wall_seconds = std::min(best.wall_seconds, wall);
  }
  return best;
}

void gemm_workload(unsigned hw) {
  const int n = 1024;
  const std::string path = std::string(CDNA4_SOURCE_DIR) + "/schedules/baseline_256x256x64_w8.json";
  cdna4::Schedule schedule = cdna4::load_schedule(path);
  auto a = small_integers(size_t(n) * n, 9, 4), b = small_integers(size_t(n) * n, 7, 3);
  std::vector<float> c(size_t(n) * n);
  Sample host = native(n, a, b, c, 3);
  fmt::print("\n1024^3 bf16 GEMM, schedule {} (fp32 out)\n", "baseline_256x256x64_w8");
  fmt::print("native fp32 GEMM, cache-blocked i-k-j, -O2, 1 thread: {:.2f} GMAC/s ({:.3f} s)\n",
             host.macs_per_second / 1e9, host.seconds);
  auto a16 = to_bf16(a), b16 = to_bf16(b);
  {  // compile once outside the timings (run_gemm caches the kernel)
    cdna4::EmulatorConfig config;
    config.instant_completion = true;
    cdna4::Device device = cdna4::Device::emulator(config);
    auto t0 = Clock::now();
    cdna4::run_gemm(device, schedule, square_problem(n, bytes_of(a16), bytes_of(b16)));
    fmt::print("first run incl. compile (instant, all threads): {:.3f} s wall\n",
               std::chrono::duration<double>(Clock::now() - t0).count());
  }
  for (bool instant : {false, true}) {
    for (unsigned threads : {1u, hw}) {
      GemmSample s = emulate_gemm(schedule, n, a16, b16, c, instant, threads);
      fmt::print("emulated ({} completion, {} thread{}): {:.2f} GMAC/s, kernel {:.3f} s, whole run {:.3f} s wall; "
                 "native/emulated = {:.2f}x; C {} native\n",
                 instant ? "instant" : "randomized", threads, threads == 1 ? "" : "s", s.macs_per_second / 1e9,
                 s.kernel_seconds, s.wall_seconds, host.macs_per_second / s.macs_per_second,
                 s.exact ? "==" : "!=");
    }
  }
}

// OpenBLAS sgemm through NumPy (Debian's /usr/bin/python3) on n x n fp32
// matrices with `threads` threads: G MAC/s, best of 5; 0 when NumPy is missing.
double openblas_gmacs(int n, unsigned threads) {
  const std::string command = fmt::format(
      "OPENBLAS_NUM_THREADS={} /usr/bin/python3 -c 'import time, numpy as np\n"
      "a = np.random.rand({}, {}).astype(np.float32); b = np.random.rand({}, {}).astype(np.float32); a @ b\n"
      "best = 1e30\nfor _ in range(5):\n t = time.perf_counter(); a @ b; best = min(best, time.perf_counter() - t)\n"
      "print({} ** 3 / best / 1e9)' 2>/dev/null",
      threads, n, n, n, n, n);
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return 0;
  double gmacs = 0;
  if (std::fscanf(pipe, "%lf", &gmacs) != 1) gmacs = 0;
  pclose(pipe);
  return gmacs;
}

// The goal of the emulator's speed, side by side on the same cores and threads:
// instant completion at >= 1/2 of OpenBLAS sgemm's G MAC/s, randomized at >= 1/3.
void against_openblas(unsigned hw) {
  fmt::print("\nside by side with OpenBLAS sgemm (NumPy), {} threads; goal: instant >= 0.50x, randomized >= 0.33x\n", hw);
  for (int n : {1024, 2048}) {
    const double blas = openblas_gmacs(n, hw);
    if (blas <= 0) {
      fmt::print("{}^3: NumPy not available (/usr/bin/python3 -c 'import numpy' failed)\n", n);
      continue;
    }
    auto a = small_integers(size_t(n) * n, 9, 4), b = small_integers(size_t(n) * n, 7, 3);
    std::vector<float> want(size_t(n) * n);
    native(n, a, b, want, 1);
    const auto a16 = to_bf16(a), b16 = to_bf16(b);
    for (const char* name : {"baseline_256x256x64_w8", "pingpong_256x256x64_w8"}) {
      const cdna4::Schedule s = cdna4::load_schedule(std::string(CDNA4_SOURCE_DIR) + "/schedules/" + name + ".json");
      for (bool instant : {true, false}) {
        const GemmSample e = emulate_gemm(s, n, a16, b16, want, instant, hw);
        fmt::print("{}^3 {} ({}): emulated {:.2f} GMAC/s, OpenBLAS {:.2f} GMAC/s, ratio {:.3f}x; C {} native\n", n, name,
                   instant ? "instant" : "randomized", e.macs_per_second / 1e9, blas, e.macs_per_second / 1e9 / blas,
                   e.exact ? "==" : "!=");
      }
    }
  }
}

// Low-precision schedules at 1024^3: integer data in the schedule's types,
// checked bit for bit against the typed reference.
void low_precision_workload(unsigned hw) {
  const int n = 1024;
  for (const char* name : {"baseline_fp8_256x256x128_w8", "pingpong_fp8_256x256x128_w8",
                           "twocluster_fp8_256x256x128_w8"}) {
    const cdna4::Schedule s = cdna4::load_schedule(std::string(CDNA4_SOURCE_DIR) + "/schedules/" + name + ".json");
    std::vector<uint32_t> ca(size_t(n) * n), cb(size_t(n) * n);
    for (size_t i = 0; i < ca.size(); ++i) {
      ca[i] = cdna4::encode_element(s.type_a, float(int((i * 2654435761u >> 9) % 9) - 4));
      cb[i] = cdna4::encode_element(s.type_b, float(int((i * 40503u >> 5) % 7) - 3));
    }
    const auto a = cdna4::pack_elements(s.type_a, ca), b = cdna4::pack_elements(s.type_b, cb);
    const auto want = cdna4::to_output_bits(cdna4::reference_gemm(s.type_a, a, s.type_b, b, n, n, n), cdna4::DataType::f32);
    for (unsigned threads : {1u, hw}) {
      cdna4::EmulatorConfig config;
      config.instant_completion = true;
      config.threads = threads;
      cdna4::Device device = cdna4::Device::emulator(config);
      double best = 1e30, macs = 0;
      bool exact = true;
      for (int rep = 0; rep < 2; ++rep) {
        const cdna4::GemmRun run = cdna4::run_gemm(device, s, square_problem(n, a, b));
        exact = exact && run.c == want;
        if (run.launch.seconds < best) best = run.launch.seconds, macs = double(run.launch.mfma_macs);
      }
      fmt::print("1024^3 {} x {} GEMM, {} (instant, {} thread{}): {:.2f} GMAC/s, kernel {:.3f} s; C {} reference\n",
                 cdna4::to_string(s.type_a), cdna4::to_string(s.type_b), name, threads, threads == 1 ? "" : "s",
                 macs / best / 1e9, best, exact ? "==" : "!=");
    }
  }
}


// What each feature costs on the 1024^3 baseline, all threads: instant
// completion is the floor; randomized completion adds the late, reordered
// memory operations and LDS race tracking; timed adds lockstep issue and
// latencies; the model device adds the traces of one CU's workgroups; the
// launch limits (instruction count, wall clock) are on in every row but the
// last, which turns them off.
void feature_costs(unsigned hw) {
  const int n = 1024;
  const cdna4::Schedule s =
      cdna4::load_schedule(std::string(CDNA4_SOURCE_DIR) + "/schedules/baseline_256x256x64_w8.json");
  const auto a = to_bf16(small_integers(size_t(n) * n, 9, 4)), b = to_bf16(small_integers(size_t(n) * n, 7, 3));
  struct Row {
    const char* name;
    bool model, instant, timed, limits;
  };
  fmt::print("\nwhat each emulator feature costs, 1024^3 baseline_256x256x64_w8, {} threads (best of 2)\n", hw);
  double floor = 0;
  for (const Row& r : {Row{"instant completion", false, true, false, true},
                       Row{"randomized completion + LDS race tracking", false, false, false, true},
                       Row{"timed (lockstep issue, gfx950 latencies)", false, false, true, true},
                       Row{"model device (randomized + one CU's traces)", true, false, false, true},
                       Row{"instant completion, no launch limits", false, true, false, false}}) {
    cdna4::EmulatorConfig config;
    config.instant_completion = r.instant;
    config.timed = r.timed;
    config.threads = hw;
    if (!r.limits) config.max_instructions = 0, config.time_limit_seconds = 0;
    cdna4::Device device = r.model ? cdna4::Device::model(config) : cdna4::Device::emulator(config);
    double best = 1e30;
    for (int rep = 0; rep < 2; ++rep) {
      auto t0 = Clock::now();
      cdna4::run_gemm(device, s, square_problem(n, bytes_of(a), bytes_of(b)));
      best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    if (floor == 0) floor = best;
    fmt::print("{:<46} {:.3f} s wall (run_gemm), {:.2f}x instant\n", r.name, best, best / floor);
  }
}

// Foreign bf16 GEMMs at 1024^3 (HipKittens' 16x32 kernel, AITER's
// bf16_tn_256x256) in the three modes, beside OpenBLAS on the same threads.
void foreign_rows(const std::string& hipkittens, const std::string& aiter, unsigned hw) {
  if (hipkittens.empty() && aiter.empty()) {
    fmt::print("\nforeign kernels: not run (--hipkittens DIR / --aiter DIR; docs/emulator.md \"Foreign kernels\")\n");
    return;
  }
  const int64_t n = 1024;
  const double blas = openblas_gmacs(int(n), hw);
  fmt::print("\nforeign bf16 GEMMs, {}^3, {} threads; OpenBLAS sgemm {:.2f} GMAC/s\n", n, hw, blas);
  const auto a = to_bf16(small_integers(size_t(n * n), 9, 4)), b = to_bf16(small_integers(size_t(n * n), 7, 3));
  cdna4::EmulatorConfig config;
  config.threads = hw;
  cdna4::Device dev = cdna4::Device::emulator(config);
  cdna4::Buffer da = dev.alloc(a.size() * 2), db = dev.alloc(b.size() * 2), dc = dev.alloc(size_t(n * n) * 4);
  da.upload(a);
  db.upload(b);
  cdna4::Buffer sema = dev.alloc(16 * 64 * 4);
  struct Kernel {
    std::string name, file;
    std::function<cdna4::LaunchStats(const cdna4::Kernel&, cdna4::LaunchOptions)> launch;
  };
  std::vector<Kernel> kernels;
  if (!hipkittens.empty())
    kernels.push_back({"hipkittens 16x32", foreign::hipkittens_file(hipkittens, "16x32", n),
                       [&](const cdna4::Kernel& k, cdna4::LaunchOptions o) {
                         return foreign::launch_hipkittens(dev, k, n, da, db, dc, o);
                       }});
  if (!aiter.empty())
    kernels.push_back({"aiter bf16_tn_256x256", aiter + "/bf16gemm_bf16_tn_256x256.co",
                       [&](const cdna4::Kernel& k, cdna4::LaunchOptions o) {
                         sema.fill_zero();
                         return foreign::launch_aiter(dev, k, foreign::kAiterKernels[0], n, n, n, da, db, dc, sema, true, o);
                       }});
  for (const Kernel& k : kernels) {
    const cdna4::Kernel kernel = cdna4::Kernel::from_file(k.file);
    for (const char* mode : {"instant", "randomized", "timed"}) {
      cdna4::LaunchOptions o;
      o.on_race = cdna4::OnRace::Report;
      o.instant_completion = std::string(mode) == "instant";
      o.timed = std::string(mode) == "timed";
      double best = 1e30, macs = 0;
      for (int rep = 0; rep < 2; ++rep) {
        const cdna4::LaunchStats st = k.launch(kernel, o);
        if (st.seconds < best) best = st.seconds, macs = double(st.mfma_macs);
      }
      fmt::print("{} ({}): emulated {:.2f} GMAC/s, ratio {:.3f}x of OpenBLAS\n", k.name, mode, macs / best / 1e9,
                 blas > 0 ? macs / best / 1e9 / blas : 0.0);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string hipkittens, aiter;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--hipkittens" || arg == "--aiter") && i + 1 < argc) {
      (arg == "--hipkittens" ? hipkittens : aiter) = argv[++i];
    } else {
      fmt::print(stderr, "usage: bench_emulator [--hipkittens DIR] [--aiter DIR] (unknown or incomplete: {})\n", arg);
      return 2;
    }
  }
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  fmt::print("cdna4 emulator benchmark (MFMA policy {}; host threads available: {})\n", cdna4::emu::kMfmaPolicy, hw);
  const int small_n = 512;
  std::vector<float> sa = small_integers(size_t(small_n) * small_n, 7, 3);
  std::vector<float> sb = small_integers(size_t(small_n) * small_n, 5, 2), sc(size_t(small_n) * small_n);
  Sample host = native(small_n, sa, sb, sc, 3);
  fmt::print("native fp32 GEMM, 512^3, 1 thread: {:.2f} GMAC/s ({:.3f} s)\n", host.macs_per_second / 1e9,
             host.seconds);
  struct Case {
    const char* mnemonic;
    int acc_regs;
  };
  for (Case c : {Case{"v_mfma_f32_16x16x32_bf16", 4}, Case{"v_mfma_f32_32x32x16_bf16", 16}}) {
    auto hsaco = cdna4::codegen::build_hsaco(mfma_loop_kernel(c.mnemonic, c.acc_regs, 64 / c.acc_regs * 4), "bench.s");
    auto code = cdna4::CodeObject::read(hsaco);
    const auto& k = code.kernel("k");
    for (bool instant : {true, false}) {
      Sample one = emulate(code, k, 64, 8, instant, 1);
      Sample all = emulate(code, k, 64, 8, instant, hw);
      fmt::print("{} ({} completion): 1 thread {:.2f} GMAC/s = {:.2f}x native; {} threads {:.2f} GMAC/s\n", c.mnemonic,
                 instant ? "instant" : "randomized", one.macs_per_second / 1e9,
                 host.macs_per_second / one.macs_per_second, hw, all.macs_per_second / 1e9);
    }
  }
  fmt::print("ratio = native MAC/s / emulated MAC/s on one thread (goal: <= 4x)\n");
  gemm_workload(hw);
  low_precision_workload(hw);
  feature_costs(hw);
  against_openblas(hw);
  foreign_rows(hipkittens, aiter, hw);
  return 0;
}
