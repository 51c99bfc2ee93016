// Emulator throughput: emulated MFMA multiply-accumulates per second on an
// MFMA-bound kernel, next to a plain native fp32 GEMM loop on this machine.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "cdna4/code_object.hpp"
#include "codegen/assembler.hpp"
#include "runtime/emulator/emulator.hpp"
#include "runtime/emulator/mfma_arithmetic.hpp"

namespace {

using Clock = std::chrono::steady_clock;

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
  int agprs = acc_regs * tiles;
  return fmt::format(R"(.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.amdhsa_code_object_version 5
.text
.globl k
.p2align 8
.type k,@function
k:
{}
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr {}
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 16
  .amdhsa_kernarg_size 8
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: {}
    .agpr_count: {}
    .max_flat_workgroup_size: 256
...
.end_amdgpu_metadata
)",
                     body, 16 + agprs, 16 + agprs, agprs);
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

// Plain fp32 GEMM C += A * B, i-k-j loop order, single thread.
__attribute__((noinline)) void native_gemm(int n, const float* a, const float* b, float* c) {
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      float aik = a[i * n + k];
      for (int j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j];
    }
}

Sample native(int n) {
  std::vector<float> a(n * n), b(n * n), c(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = float(i % 7) - 3;
    b[i] = float(i % 5) - 2;
  }
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    std::fill(c.begin(), c.end(), 0.0f);
    auto t0 = Clock::now();
    native_gemm(n, a.data(), b.data(), c.data());
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  volatile float sink = c[n + 1];
  (void)sink;
  return {double(n) * n * n / best, best};
}

}  // namespace

int main() {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  fmt::print("cdna4 emulator benchmark (MFMA policy {}; host threads available: {})\n", cdna4::emu::kMfmaPolicy, hw);
  Sample host = native(512);
  fmt::print("native fp32 GEMM loop, 512^3, 1 thread: {:.2f} GMAC/s ({:.3f} s)\n", host.macs_per_second / 1e9,
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
  return 0;
}
