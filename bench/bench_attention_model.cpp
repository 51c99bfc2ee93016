// Attention forward through the timing model next to published MI355X
// figures, non-causal and causal (docs/model.md "Attention forward"):
// HipKittens' kernel in its four published configurations, and AITER's
// fmha_v3_fwd as HipKittens' benchmark timed it beside its own.
//
//   bench_attention_model --hipkittens DIR [--aiter DIR] [--sizes 1024,2048,4096]
//                         [--families gqa,mha,gqa_d64,mha_d64,aiter_gqa,aiter_mha]
//
// The --hipkittens DIR holds hipkittens_attn_{gqa,mha}[_causal]_d{128,64}_<N>.hsaco,
// each built at ATTN_B=16 and the family's ATTN_H / ATTN_H_KV / ATTN_D (GQA
// 64 / 8, MHA 16 / 16) and ATTN_N=<N> as docs/model.md says; the --aiter DIR
// holds fmha_v3_fwd/fwd_hd128_bf16{,_causal}.co as AITER had them when
// HipKittens timed them (docs/model.md). A family whose files are missing is
// skipped with a note. Only the model's sampled workgroups run; the buffers
// are allocated whole (about 0.6 GB per 1024 of N at d 128).
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cdna4/runtime.hpp"
#include "foreign_kernels.hpp"
#include "model_calibration.hpp"

namespace {

// Published TFLOP/s at N = 1024, 2048, 4096, 8192, 16384: HipKittens
// analysis/attn/fwd/benchmark/mi355x_{family}_{non_causal,causal}_fwd.json,
// "tflops" (HipKittens' kernel) and "tflops_ref" (aiter.flash_attn_func, which
// runs fmha_v3_fwd for bf16 d 128 on gfx950).
struct Family {
  const char* name;  // --families name
  const char* stem;  // HipKittens file stem
  int64_t heads_q, heads_kv, dim;
  bool aiter;
  double non_causal[5], causal[5];
};
constexpr int64_t kPublishedSizes[] = {1024, 2048, 4096, 8192, 16384};
constexpr Family kFamilies[] = {
    {"gqa", "gqa", 64, 8, 128, false, {999.7, 1154.0, 1262.3, 1297.8, 1325.5}, {717.6, 932.7, 1084.9, 1215.5, 1259.1}},
    {"mha", "mha", 16, 16, 128, false, {953.0, 1147.6, 1228.4, 1282.9, 1304.3}, {633.5, 861.4, 1048.2, 1146.4, 1187.6}},
    {"gqa_d64", "gqa", 64, 8, 64, false, {769.7, 898.3, 934.1, 960.9, 979.1}, {525.0, 722.2, 821.2, 890.3, 940.9}},
    {"mha_d64", "mha", 16, 16, 64, false, {738.7, 896.8, 940.9, 954.4, 968.6}, {419.9, 629.9, 795.6, 873.7, 861.8}},
    {"aiter_gqa", "", 64, 8, 128, true, {1032.5, 1152.4, 1231.2, 1281.3, 1291.3}, {715.1, 941.1, 1100.9, 1204.7, 1246.1}},
    {"aiter_mha", "", 16, 16, 128, true, {828.1, 1085.2, 1210.7, 1259.3, 1282.6}, {554.6, 876.3, 1069.0, 1173.2, 1247.4}},
};

double published(const Family& f, int64_t n, bool causal) {
  for (size_t i = 0; i < std::size(kPublishedSizes); ++i)
    if (kPublishedSizes[i] == n) return causal ? f.causal[i] : f.non_causal[i];
  return 0;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  for (size_t at = 0; at < s.size();) {
    const size_t comma = s.find(',', at);
    out.push_back(s.substr(at, comma - at));
    at = comma == std::string::npos ? s.size() : comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir, aiter_dir;
  std::vector<int64_t> sizes{1024, 2048, 4096};
  std::vector<std::string> families{"gqa", "mha", "gqa_d64", "mha_d64", "aiter_gqa", "aiter_mha"};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--hipkittens") dir = argv[i + 1];
    else if (arg == "--aiter") aiter_dir = argv[i + 1];
    else if (arg == "--sizes") {
      sizes.clear();
      for (const std::string& n : split(argv[i + 1])) sizes.push_back(std::stoll(n));
    } else if (arg == "--families") families = split(argv[i + 1]);
  }
  if (dir.empty()) {
    fmt::print(stderr,
               "usage: bench_attention_model --hipkittens DIR [--aiter DIR] [--sizes 1024,2048,4096] "
               "[--families gqa,mha,gqa_d64,mha_d64,aiter_gqa,aiter_mha]\n");
    return 2;
  }
  cdna4::EmulatorConfig config;
  config.model_only = true;
  config.instant_completion = true;
  fmt::print("| kernel | N | modeled TFLOP/s | published TFLOP/s | error | bound | CU term TFLOP/s | MFMA util. | "
             "resident sets (cycles) | top stalls (% of wave time) | sampled | modeling s |\n"
             "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& name : families) {
    const Family* f = nullptr;
    for (const Family& candidate : kFamilies)
      if (name == candidate.name) f = &candidate;
    if (!f) {
      fmt::print(stderr, "bench_attention_model: unknown family '{}' (gqa, mha, gqa_d64, mha_d64, aiter_gqa, aiter_mha)\n",
                 name);
      return 2;
    }
    for (bool causal : {false, true})
      for (int64_t n : sizes) {
        const foreign::AiterFmha aiter{causal ? "fmha_v3_fwd/fwd_hd128_bf16_causal.co" : "fmha_v3_fwd/fwd_hd128_bf16.co",
                                       false, causal, 256};
        const std::string file =
            f->aiter ? fmt::format("{}/{}", aiter_dir, aiter.file)
                     : fmt::format("{}/hipkittens_attn_{}{}_d{}_{}.hsaco", dir, f->stem, causal ? "_causal" : "", f->dim, n);
        if (!std::filesystem::exists(file)) {
          fmt::print("| (skipped: no {}) |\n", file);
          continue;
        }
        const foreign::AttentionShape shape{16, f->heads_q, f->heads_kv, n, f->dim, causal};
        cdna4::Device dev = cdna4::Device::open("model", config);
        const auto q_bytes = size_t(shape.q_elements()) * 2, kv_bytes = size_t(shape.kv_elements()) * 2;
        cdna4::Buffer q = dev.alloc(q_bytes), k = dev.alloc(kv_bytes), v = dev.alloc(kv_bytes), o = dev.alloc(q_bytes);
        cdna4::Buffer lse = dev.alloc(size_t(shape.rows()) * 4);
        cdna4::LaunchOptions opt;
        opt.on_race = cdna4::OnRace::Report;  // HipKittens breaks the M0-before-LDS-DMA wait state (docs/emulator.md)
        const auto t0 = std::chrono::steady_clock::now();
        const cdna4::Kernel kernel = cdna4::Kernel::from_file(file);
        const foreign::AttentionBuffers io{q, k, v, o, lse};
        const cdna4::LaunchStats stats = f->aiter ? foreign::launch_aiter_fmha(dev, kernel, aiter, shape, io, q, opt)
                                                  : foreign::launch_hipkittens_attention(dev, kernel, shape, io, opt);
        const double modeling = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const cdna4::ModelReport& m = *stats.model;
        const double flops =
            4.0 * 16 * double(n) * double(n) * double(f->heads_q) * double(f->dim) / (causal ? 2 : 1);
        const double tflops = flops / m.seconds / 1e12;
        const double pub = published(*f, n, causal);
        fmt::print("| {} attn fwd {} d{}{} | {} | {:.0f} | {} | {} | {} | {:.0f} | {:.1f}% | {}-{} | {} | {} | {:.1f} |\n",
                   f->aiter ? "AITER fmha_v3" : "HipKittens", f->heads_q == f->heads_kv ? "MHA" : "GQA", f->dim, causal ? " causal" : "", n, tflops,
                   pub ? fmt::format("{:.0f}", pub) : "-", pub ? fmt::format("{:+.1f}%", 100 * (tflops / pub - 1)) : "-",
                   m.bound, flops / m.compute_seconds / 1e12, 100 * m.mfma_utilization, m.lightest_cu_cycles,
                   m.heaviest_cu_cycles, bench::largest_stalls(m.stalls), m.sampled_workgroups, modeling);
        std::fflush(stdout);
      }
  }
  return 0;
}
