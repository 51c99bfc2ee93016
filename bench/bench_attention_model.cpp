// HipKittens' attention forward (d 128, GQA B = 16, H = 64, H_KV = 8) through
// the timing model next to its published MI355X figures, non-causal and causal
// (docs/model.md "Attention forward"):
//
//   bench_attention_model --hipkittens DIR [--sizes 1024,2048,4096]
//
// DIR holds hipkittens_attn_{gqa,gqa_causal}_d128_<N>.hsaco, each built at
// ATTN_B=16 ATTN_H=64 ATTN_H_KV=8 ATTN_N=<N> as docs/model.md says. Only the
// model's sampled workgroups run; the buffers are allocated whole (about
// 0.6 GB per 1024 of N).
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "cdna4/runtime.hpp"
#include "foreign_kernels.hpp"

namespace {

struct PublishedAttention {
  int64_t seqlen;
  double non_causal, causal;  // TFLOP/s, HipKittens analysis/attn/fwd/benchmark/mi355x_gqa_*_fwd.json "tflops"
};
constexpr PublishedAttention kPublished[] = {
    {1024, 999.7, 717.6}, {2048, 1154.0, 932.7}, {4096, 1262.3, 1084.9}, {8192, 1297.8, 1215.5}, {16384, 1325.5, 1259.1}};

std::vector<int64_t> parse_sizes(const std::string& s) {
  std::vector<int64_t> out;
  for (size_t at = 0; at < s.size();) {
    const size_t comma = s.find(',', at);
    out.push_back(std::stoll(s.substr(at, comma - at)));
    at = comma == std::string::npos ? s.size() : comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  std::vector<int64_t> sizes{1024, 2048, 4096};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--hipkittens") dir = argv[i + 1];
    else if (arg == "--sizes") sizes = parse_sizes(argv[i + 1]);
  }
  if (dir.empty()) {
    fmt::print(stderr, "usage: bench_attention_model --hipkittens DIR [--sizes 1024,2048,4096]\n");
    return 2;
  }
  cdna4::EmulatorConfig config;
  config.model_only = true;
  config.instant_completion = true;
  fmt::print("| kernel | N | modeled TFLOP/s | published TFLOP/s | error | bound | CU term TFLOP/s | MFMA util. | "
             "resident sets (cycles) | sampled | modeling s |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (bool causal : {false, true})
    for (int64_t n : sizes) {
      const foreign::AttentionShape shape{16, 64, 8, n, 128, causal};
      const std::string file = fmt::format("{}/hipkittens_attn_{}_d128_{}.hsaco", dir, causal ? "gqa_causal" : "gqa", n);
      cdna4::Device dev = cdna4::Device::open("model", config);
      const auto q_bytes = size_t(shape.q_elements()) * 2, kv_bytes = size_t(shape.kv_elements()) * 2;
      cdna4::Buffer q = dev.alloc(q_bytes), k = dev.alloc(kv_bytes), v = dev.alloc(kv_bytes), o = dev.alloc(q_bytes);
      cdna4::Buffer lse = dev.alloc(size_t(shape.rows()) * 4);
      cdna4::LaunchOptions opt;
      opt.on_race = cdna4::OnRace::Report;  // HipKittens breaks the M0-before-LDS-DMA wait state (docs/emulator.md)
      const auto t0 = std::chrono::steady_clock::now();
      const cdna4::LaunchStats stats = foreign::launch_hipkittens_attention(
          dev, cdna4::Kernel::from_file(file), shape, {q, k, v, o, lse}, opt);
      const double modeling = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const cdna4::ModelReport& m = *stats.model;
      const double flops = 4.0 * 16 * double(n) * double(n) * 64 * 128 / (causal ? 2 : 1);
      const double tflops = flops / m.seconds / 1e12;
      double published = 0;
      for (const auto& p : kPublished)
        if (p.seqlen == n) published = causal ? p.causal : p.non_causal;
      fmt::print("| HipKittens attn fwd d128{} | {} | {:.0f} | {} | {} | {} | {:.0f} | {:.1f}% | {}-{} | {} | {:.1f} |\n",
                 causal ? " causal" : "", n, tflops, published ? fmt::format("{:.0f}", published) : "-",
                 published ? fmt::format("{:+.1f}%", 100 * (tflops / published - 1)) : "-", m.bound,
                 flops / m.compute_seconds / 1e12, 100 * m.mfma_utilization,
                 m.lightest_cu_cycles, m.heaviest_cu_cycles, m.sampled_workgroups, modeling);
      std::fflush(stdout);
    }
  return 0;
}
