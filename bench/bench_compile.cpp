// compile() time, schedule JSON in -> hsaco bytes out: cold (cache off), cached, and
// next to clang-22 compiling the equivalent HIP kernel (bench/gemm_mfma_256x256x64.hip).
//
//   bench_compile [REPEATS] [CLANG_REPEATS]
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cdna4/gemm.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// CPU time next to wall time: on a shared, loaded machine wall time also counts waiting for a core.
double process_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return 1e3 * double(ts.tv_sec) + 1e-6 * double(ts.tv_nsec);
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs argv, output to `log`; returns the exit status (-1 when it could not start or was killed)
// and the child's user + system CPU time in `cpu_ms`.
int run(const std::vector<std::string>& argv, const fs::path& log, double& cpu_ms) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int err = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) return -1;
  int status = 0;
  rusage ru{};
  while (wait4(pid, &status, 0, &ru) < 0)
    if (errno != EINTR) return -1;
  cpu_ms = 1e3 * double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           1e-3 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

cdna4::CompileOptions compile_options(bool use_cache, std::string kernel_name) {
  cdna4::CompileOptions o;
  o.use_cache = use_cache;
  o.kernel_name = std::move(kernel_name);
  return o;
}

struct Cold {
  std::vector<double> wall, cpu, json, verify, wait, lower, assemble, link;
  cdna4::CompileStats last;
  size_t hsaco_bytes = 0;
};

// One cold compile added to `c`.
void cold_compile(Cold& c, const std::string& json, const cdna4::GemmShape& shape, int& serial) {
  // A fresh kernel name every time: nothing compiled before can be reused.
  const cdna4::CompileOptions options = compile_options(false, fmt::format("bench_cold_{}", serial++));
  const double cpu0 = process_cpu_ms();
  const auto t0 = Clock::now();
  const cdna4::GemmKernel k = cdna4::compile_json(json, shape, options);
  const double wall = ms_since(t0);
  c.cpu.push_back(process_cpu_ms() - cpu0);
  const auto& s = k.stats;
  c.wall.push_back(wall);
  c.json.push_back(wall - s.total_ms);  // JSON parse happens before compile() starts its clock
  c.verify.push_back(s.parse_plan_verify_ms);
  c.wait.push_back(s.verify_wait_ms);
  c.lower.push_back(s.lower_ms);
  c.assemble.push_back(s.assemble_ms);
  c.link.push_back(s.link_ms);
  c.last = s;
  c.hsaco_bytes = k.kernel.hsaco().size();
}

// Cached compiles, timed in microseconds; `compile_one` takes the options.
template <typename F>
std::vector<double> cached_compiles(F compile_one, int repeats) {
  const cdna4::CompileOptions options = compile_options(true, "bench_cached");
  compile_one(options);  // fills the cache
  std::vector<double> us;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = Clock::now();
    const cdna4::GemmKernel k = compile_one(options);
    us.push_back(1000.0 * ms_since(t0));
    if (!k.stats.cached) throw std::runtime_error("compile with use_cache=true missed the cache");
  }
  return us;
}

}  // namespace

int main(int argc, char** argv) try {
  const int repeats = argc > 1 ? std::max(3, std::atoi(argv[1])) : 20;
  const int clang_repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  const fs::path source_dir = CDNA4_SOURCE_DIR;
  const std::string clang = CDNA4_CLANG;
  if (clang.empty() || clang.ends_with("NOTFOUND") || access(clang.c_str(), X_OK) != 0) {
    fmt::print(stderr, "bench_compile: clang-22 not found (CDNA4_CLANG is '{}'); it is needed for the comparison\n",
               clang);
    return 1;
  }

  // Every shipped schedule, the baseline first; the 256x256 tiles have the 2 ms goal.
  std::vector<std::string> schedules;
  for (const auto& e : fs::directory_iterator(source_dir / "schedules"))
    if (e.path().extension() == ".json" && e.path().stem() != "schedule.schema")
      schedules.push_back(e.path().stem().string());
  std::sort(schedules.begin(), schedules.end(), [](const std::string& x, const std::string& y) {
    const bool bx = x == "baseline_256x256x64_w8", by = y == "baseline_256x256x64_w8";
    return bx != by ? bx : x < y;
  });
  const std::vector<std::string> shapes = {"4096x4096x4096", "1024x1024x1024"};
  std::vector<std::string> json;
  for (const auto& s : schedules) json.push_back(read_text(source_dir / "schedules" / (s + ".json")));

  int serial = 0;
  auto t0 = Clock::now();
  cdna4::compile_json(json[0], cdna4::parse_shape(shapes[0]), compile_options(false, "bench_first"));
  const double first_ms = ms_since(t0);
  // Templates and their encodings are made once per process, as in any long-running user.
  for (size_t i = 0; i < schedules.size(); ++i)
    cdna4::compile_json(json[i], cdna4::parse_shape(shapes[0]), compile_options(false, "bench_warm"));

  fmt::print("cdna4 compile(), schedule JSON text -> hsaco bytes, {} rounds over every schedule and shape "
             "(p50 / p90)\n",
             repeats);
  fmt::print("first call (one-time LLVM target initialisation): {:.3f} ms\n\n", first_ms);
  fmt::print("cold stages (p50 ms): json = parse_schedule; verify = plan + verify, on a second thread beside lower, "
             "asm and link;\nwait = the kernel waiting for the verdict; lower; asm = LLVM MC; link = lld\n");
  fmt::print("{:<32} {:<15} {:>5} {:>6} | {:>7} {:>7} {:>7} | {:>9} {:>7} | {:>5} {:>6} {:>5} {:>5} {:>5} {:>5}\n",
             "schedule", "shape", "insts", "hsaco", "cold ms", "p90", "cpu ms", "cached us", "p90", "json", "verify",
             "wait", "lower", "asm", "link");
  // Round-robin, so a slow spell of the machine is shared by every row.
  std::vector<std::vector<Cold>> cold(schedules.size(), std::vector<Cold>(shapes.size()));
  for (int round = 0; round < repeats; ++round)
    for (size_t i = 0; i < schedules.size(); ++i)
      for (size_t j = 0; j < shapes.size(); ++j) cold_compile(cold[i][j], json[i], cdna4::parse_shape(shapes[j]), serial);
  double baseline_cold = 0, baseline_cpu = 0, baseline_cached = 0, worst_256 = 0;
  std::string worst_name;
  for (size_t i = 0; i < schedules.size(); ++i)
    for (size_t j = 0; j < shapes.size(); ++j) {
      const std::string& shape_text = shapes[j];
      const cdna4::GemmShape shape = cdna4::parse_shape(shape_text);
      const Cold& c = cold[i][j];
      const auto from_json = [&](const cdna4::CompileOptions& o) { return cdna4::compile_json(json[i], shape, o); };
      const std::vector<double> cached = cached_compiles(from_json, repeats);
      if (i == 0 && j == 0) {
        baseline_cold = percentile(c.wall, 0.5);
        baseline_cpu = percentile(c.cpu, 0.5);
        baseline_cached = percentile(cached, 0.5);
      }
      if (schedules[i].find("_256x256x") != std::string::npos && percentile(c.wall, 0.5) > worst_256) {
        worst_256 = percentile(c.wall, 0.5);
        worst_name = schedules[i] + " " + shape_text;
      }
      fmt::print("{:<32} {:<15} {:>5} {:>6} | {:>7.3f} {:>7.3f} {:>7.3f} | {:>9.2f} {:>7.2f} | {:>5.3f} {:>6.3f} "
                 "{:>5.3f} {:>5.3f} {:>5.3f} {:>5.3f}\n",
                 schedules[i], shape_text, c.last.instructions, c.hsaco_bytes, percentile(c.wall, 0.5),
                 percentile(c.wall, 0.9), percentile(c.cpu, 0.5), percentile(cached, 0.5), percentile(cached, 0.9),
                 percentile(c.json, 0.5), percentile(c.verify, 0.5), percentile(c.wait, 0.5), percentile(c.lower, 0.5),
                 percentile(c.assemble, 0.5), percentile(c.link, 0.5));
    }
  fmt::print("\nevery 256x256 schedule: cold p50 <= 2 ms   {}   (slowest: {} at {:.3f} ms)\n\n",
             worst_256 <= 2 ? "met" : "MISSED", worst_name, worst_256);

  const cdna4::Schedule parsed = cdna4::parse_schedule(json[0]);
  const cdna4::GemmShape shape0 = cdna4::parse_shape(shapes[0]);
  const std::vector<double> cached_parsed =
      cached_compiles([&](const cdna4::CompileOptions& o) { return cdna4::compile(parsed, shape0, o); }, repeats);
  fmt::print("cached compile(Schedule) without the JSON parse, {} {}: p50 {:.2f} us  p90 {:.2f} us\n", schedules[0],
             shapes[0], percentile(cached_parsed, 0.5), percentile(cached_parsed, 0.9));

  // clang-22: HIP source -> hsaco (compile and link), the same kernel tile and MFMA.
  const fs::path hip = source_dir / "bench" / "gemm_mfma_256x256x64.hip";
  const fs::path tmp = fs::temp_directory_path() / fmt::format("cdna4_bench_compile_{}", getpid());
  fs::create_directories(tmp);
  std::vector<double> clang_ms, clang_cpu;
  size_t clang_bytes = 0;
  int status = 0;
  for (int i = 0; i < clang_repeats && status == 0; ++i) {
    const fs::path out = tmp / fmt::format("gemm_{}.hsaco", i);
    t0 = Clock::now();
    double cpu = 0;
    status = run({clang, "-x", "hip", "--offload-arch=gfx950", "-O3", "--cuda-device-only", "-nogpulib", "-nogpuinc",
                  "--no-gpu-bundle-output", hip.string(), "-o", out.string()},
                 tmp / "clang.log", cpu);
    clang_ms.push_back(ms_since(t0));
    clang_cpu.push_back(cpu);
    // Loading checks that the output is a code object holding the kernel, not an offload bundle.
    if (status == 0 && i == 0)
      clang_bytes = cdna4::Kernel::from_file(out.string(), "gemm_mfma_256x256x64").hsaco().size();
  }
  const std::string log = status == 0 ? "" : read_text(tmp / "clang.log");
  fs::remove_all(tmp);
  if (status != 0) {
    fmt::print(stderr, "bench_compile: {} failed on {} (status {}):\n{}\n", clang, hip.string(), status, log);
    return 1;
  }
  const double clang_p50 = percentile(clang_ms, 0.5);
  const double ratio = clang_p50 / baseline_cold;

  fmt::print("\nclang-22 -x hip --offload-arch=gfx950 -O3 --cuda-device-only ({}), {} repeats:\n",
             hip.filename().string(), clang_repeats);
  fmt::print("  p50 {:.1f} ms  p90 {:.1f} ms  cpu p50 {:.1f} ms  hsaco {} bytes\n\n", clang_p50,
             percentile(clang_ms, 0.9), percentile(clang_cpu, 0.5), clang_bytes);
  fmt::print("baseline_256x256x64_w8 @ 4096x4096x4096:\n");
  fmt::print("  cold    p50 {:8.3f} ms   goal <= 3 ms    {}   (cpu time {:.3f} ms)\n", baseline_cold,
             baseline_cold <= 3 ? "met" : "MISSED", baseline_cpu);
  fmt::print("  cached  p50 {:8.2f} us   goal <= 20 us   {}\n", baseline_cached,
             baseline_cached <= 20 ? "met" : "MISSED");
  fmt::print("  clang / cdna4 cold = {:.0f}x   goal >= 100x   {}   (cpu time: {:.0f}x)\n", ratio,
             ratio >= 100 ? "met" : "MISSED", percentile(clang_cpu, 0.5) / baseline_cpu);
  return 0;
} catch (const std::exception& e) {
  fmt::print(stderr, "bench_compile: {}\n", e.what());
  return 1;
}
