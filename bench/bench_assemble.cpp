// Assemble + link time of a ~4,000-instruction gfx950 kernel: the text path (LLVM MC
// parses assembly) against streaming (MCInsts from instruction templates), and the
// cold compile() of the 256x256x64 GEMM kernel with each.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cdna4/gemm.hpp"
#include "codegen/assembler.hpp"
#include "codegen/isa/code.hpp"
#include "codegen/kernel_descriptor.hpp"

namespace {

using namespace cdna4::codegen::isa;

cdna4::codegen::KernelSpec bench_spec() {
  cdna4::codegen::KernelSpec spec;
  spec.name = "bench_kernel";
  spec.vgprs = 128;
  spec.agprs = 128;
  spec.sgprs = 32;
  spec.lds_bytes = 65536;
  spec.workgroup_size = 256;
  spec.args = {{"a"}, {"b"}, {"c"}};
  return spec;
}

// A GEMM-like instruction mix: LDS-DMA loads, LDS reads, MFMAs, waits, barriers.
Code bench_code(int groups) {
  Code c;
  for (int g = 0; g < groups; ++g) {
    c.s_mov_b32(m0, imm((g % 16) * 1024));
    c.s_nop(0);
    c.buffer_load_dwordx4_lds(v(g % 8), s(12, 4), imm(0), (g * 64) % 4096);
    for (int r = 0; r < 4; ++r) c.ds_read_b128(v(16 + 4 * r, 4), v(100), (g * 512 + r * 128) % 65536);
    c.s_waitcnt(-1, 0);
    c.s_setprio(1);
    for (int m = 0; m < 8; ++m)
      c.v_mfma("v_mfma_f32_16x16x32_bf16", a(4 * m, 4), v(16, 4), v(20 + 4 * (m % 3), 4), a(4 * m, 4));
    c.s_setprio(0);
    c.s_waitcnt(g % 8, -1);
    c.s_barrier();
  }
  c.s_endpgm();
  return c;
}

double p50(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double ms_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  namespace cg = cdna4::codegen;
  const int repeats = argc > 1 ? std::max(3, std::atoi(argv[1])) : 25;
  const cg::KernelSpec spec = bench_spec();
  const Code code = bench_code(200);
  const std::string text = cg::kernel_prologue_directives(spec) + code.text() + cg::kernel_epilogue_directives(spec);
  const size_t instructions = code.instruction_count();

  std::vector<double> text_ms, stream_ms, link_ms, to_text_ms;
  cg::Bytes text_object, streamed_object, hsaco;
  for (int i = 0; i < repeats + 1; ++i) {
    const double t = ms_of([&] { text_object = cg::assemble(text, "bench.s"); });
    const double s = ms_of([&] { streamed_object = cg::assemble_code(code, spec, "bench.s"); });
    const double l = ms_of([&] { hsaco = cg::link_hsaco(text_object); });
    const double p = ms_of([&] { (void)code.text(); });
    if (i == 0) continue;  // first run pays target initialisation and template building
    text_ms.push_back(t);
    stream_ms.push_back(s);
    link_ms.push_back(l);
    to_text_ms.push_back(p);
  }
  if (streamed_object != text_object) {
    fmt::print("streamed object differs from the text path's\n");
    return 1;
  }
  const double us = 1000.0 / double(instructions);
  fmt::print("kernel: {} instructions, hsaco {} bytes, {} repeats (objects byte-identical)\n", instructions,
             hsaco.size(), repeats);
  fmt::print("assemble, text (LLVM MC parser)     p50 {:7.3f} ms  ({:.3f} us/instruction)\n", p50(text_ms),
             us * p50(text_ms));
  fmt::print("assemble, streamed MCInsts          p50 {:7.3f} ms  ({:.3f} us/instruction)  {:.1f}x\n",
             p50(stream_ms), us * p50(stream_ms), p50(text_ms) / p50(stream_ms));
  fmt::print("Code::text() (printing, text only)  p50 {:7.3f} ms\n", p50(to_text_ms));
  fmt::print("link (lld in process)               p50 {:7.3f} ms\n", p50(link_ms));
  fmt::print("assemble + link, text / streamed    p50 {:7.3f} / {:.3f} ms\n", p50(text_ms) + p50(link_ms),
             p50(stream_ms) + p50(link_ms));

  // Cold compile() (cache off) of the 256x256x64 GEMM kernel through each path.
  const cdna4::Schedule schedule =
      cdna4::load_schedule(std::string(CDNA4_SOURCE_DIR) + "/schedules/baseline_256x256x64_w8.json");
  for (const char* shape_text : {"256x256x64", "4096x4096x4096"}) {
    const cdna4::GemmShape shape = cdna4::parse_shape(shape_text);
    for (bool text_path : {true, false}) {
      cdna4::CompileOptions options;
      options.use_cache = false;
      options.text_assembly = text_path;
      std::vector<double> total, assemble;
      int insts = 0;
      for (int i = 0; i < repeats + 1; ++i) {
        const cdna4::GemmKernel k = cdna4::compile(schedule, shape, options);
        if (i == 0) continue;
        total.push_back(k.stats.total_ms);
        assemble.push_back(k.stats.assemble_ms);
        insts = k.stats.instructions;
      }
      fmt::print("compile() baseline_256x256x64_w8 {:>14} ({} instructions), {:<8}: total p50 {:.3f} ms, "
                 "assemble p50 {:.3f} ms ({:.3f} us/instruction)\n",
                 shape_text, insts, text_path ? "text" : "streamed", p50(total), p50(assemble),
                 1000.0 * p50(assemble) / insts);
    }
  }
  return 0;
}
