// compile() time against K: lowering emits the steady-state loop once, so the
// time should be flat from K = 2^16 to 2^24 (and beyond, up to the 1 GiB limits).
//
//   bench_compile_k [SCHEDULE.json ...]   (default: four shipped schedules)
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cdna4/gemm.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> schedules(argv + 1, argv + argc);
  if (schedules.empty())
    for (const char* name : {"baseline_256x256x64_w8.json", "prefetch2_256x256x64_w8.json",
                             "interleave4_256x256x64_w8.json", "pingpong_256x256x64_w8.json"})
      schedules.push_back(std::string(CDNA4_SOURCE_DIR) + "/schedules/" + name);
  cdna4::CompileOptions options;
  options.use_cache = false;
  fmt::print("{:<36} {:>10} {:>10} {:>10} {:>12}\n", "schedule", "K", "lower ms", "total ms", "instructions");
  for (const std::string& path : schedules) {
    const cdna4::Schedule schedule = cdna4::load_schedule(path);
    for (const int log2_k : {16, 20, 24}) {
      cdna4::GemmShape shape;
      shape.m = shape.n = 16;  // A and B at K = 2^24: 16 rows of bf16 = 512 MiB, below the 1 GiB limit
      shape.k = int64_t(1) << log2_k;
      const cdna4::GemmKernel k = cdna4::compile(schedule, shape, options);
      fmt::print("{:<36} {:>10} {:>10.2f} {:>10.2f} {:>12}\n", schedule.name, shape.k, k.stats.lower_ms,
                 k.stats.total_ms, k.stats.instructions);
    }
  }
  return 0;
}
