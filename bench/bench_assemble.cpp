// Assemble + link time of a ~4,000-instruction gfx950 kernel through the text path.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "codegen/assembler.hpp"
#include "codegen/kernel_descriptor.hpp"

namespace {

// A GEMM-like instruction mix: LDS-DMA loads, LDS reads, MFMAs, waits, barriers.
std::string kernel_text(int groups, int& instructions) {
  cdna4::codegen::KernelSpec spec;
  spec.name = "bench_kernel";
  spec.vgprs = 128;
  spec.agprs = 128;
  spec.sgprs = 32;
  spec.lds_bytes = 65536;
  spec.workgroup_size = 256;
  spec.args = {{"a"}, {"b"}, {"c"}};
  std::string body = cdna4::codegen::kernel_prologue_directives(spec);
  instructions = 0;
  auto emit = [&](const std::string& line) { body += "\t" + line + "\n"; ++instructions; };
  for (int g = 0; g < groups; ++g) {
    emit(fmt::format("s_mov_b32 m0, {}", (g % 16) * 1024));
    emit("s_nop 0");
    emit(fmt::format("buffer_load_dwordx4 v{}, s[12:15], 0 offen offset:{} lds", g % 8, (g * 64) % 4096));
    for (int r = 0; r < 4; ++r)
      emit(fmt::format("ds_read_b128 v[{}:{}], v100 offset:{}", 16 + 4 * r, 19 + 4 * r, (g * 512 + r * 128) % 65536));
    emit("s_waitcnt lgkmcnt(0)");
    emit("s_setprio 1");
    for (int m = 0; m < 8; ++m)
      emit(fmt::format("v_mfma_f32_16x16x32_bf16 a[{}:{}], v[16:19], v[{}:{}], a[{}:{}]", 4 * m, 4 * m + 3,
                       20 + 4 * (m % 3), 23 + 4 * (m % 3), 4 * m, 4 * m + 3));
    emit("s_setprio 0");
    emit(fmt::format("s_waitcnt vmcnt({})", g % 8));
    emit("s_barrier");
  }
  emit("s_endpgm");
  return body + cdna4::codegen::kernel_epilogue_directives(spec);
}

double p50(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(3, std::atoi(argv[1])) : 25;
  int instructions = 0;
  const std::string text = kernel_text(200, instructions);
  std::vector<double> assemble_ms, link_ms, total_ms;
  size_t bytes = 0;
  for (int i = 0; i < repeats + 1; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto object = cdna4::codegen::assemble(text, "bench.s");
    const auto t1 = std::chrono::steady_clock::now();
    auto hsaco = cdna4::codegen::link_hsaco(object);
    const auto t2 = std::chrono::steady_clock::now();
    bytes = hsaco.size();
    if (i == 0) continue;  // first run pays one-time target initialisation
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    assemble_ms.push_back(ms(t0, t1));
    link_ms.push_back(ms(t1, t2));
    total_ms.push_back(ms(t0, t2));
  }
  fmt::print("kernel: {} instructions, hsaco {} bytes, {} repeats\n", instructions, bytes, repeats);
  fmt::print("assemble (text, LLVM MC) p50 {:.3f} ms  ({:.2f} us/instruction)\n", p50(assemble_ms),
             1000.0 * p50(assemble_ms) / instructions);
  fmt::print("link (lld in process)    p50 {:.3f} ms\n", p50(link_ms));
  fmt::print("assemble + link          p50 {:.3f} ms\n", p50(total_ms));
  return 0;
}
