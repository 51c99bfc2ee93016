// Drives Origami's analytical GEMM model (ROCm rocm-libraries, shared/origami) for the
// cdna4 JIT project's shipped schedules and calibration kernels on gfx950 (MI355X).
//
// Written for this comparison; it only calls Origami's public C++ API
// (origami/gemm.hpp, origami/hardware.hpp, origami/streamk.hpp) plus
// compute_epilogue_latency, which gemm.cpp defines with external linkage but the
// header does not declare. The per-level memory terms are recomputed from Origami's
// own helper functions only to name the limiting level; the driver checks that its
// recomputation equals compute_memory_latency / compute_tile_latency /
// compute_total_latency exactly and aborts otherwise.
//
// Usage: origami_predict [--csv FILE] [--mem-clock-khz N]
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <hip/hip_runtime.h>

#include "origami/gemm.hpp"
#include "origami/hardware.hpp"
#include "origami/streamk.hpp"
#include "origami/types.hpp"

namespace origami {
// Defined in src/origami/gemm.cpp (external linkage), not declared in gemm.hpp.
double compute_epilogue_latency(const problem_t& problem,
                                const hardware_t& hardware,
                                const config_t& config,
                                const context_t& context);
}  // namespace origami

using namespace origami;

struct Cfg {
  const char* name;
  const char* kind;  // "shipped" or "calibration"
  size_t mt_m, mt_n, mt_k;
  size_t mi_m, mi_n, mi_k;
  int waves;
  int occupancy;     // workgroups per CU (our model's figure / kernel metadata)
  bool native_f32;   // the kernel's own output type: f32 (true) or bf16 (false)
};

// Tile, MFMA and waves from schedules/*.json; occupancy from
// `cdna4-gemm <schedule> --device model --model-only` ("modeled occupancy").
// HipKittens / AITER from their sources and code-object metadata.
static const std::vector<Cfg> kConfigs = {
    {"baseline_256x256x64_w8", "shipped", 256, 256, 64, 16, 16, 32, 8, 1, true},
    {"prefetch2_256x256x64_w8", "shipped", 256, 256, 64, 16, 16, 32, 8, 1, true},
    {"interleave4_256x256x64_w8", "shipped", 256, 256, 64, 16, 16, 32, 8, 1, true},
    {"pingpong_256x256x64_w8", "shipped", 256, 256, 64, 32, 32, 16, 8, 1, true},
    {"pingpong2_256x128x64_w8", "shipped", 256, 128, 64, 16, 16, 32, 8, 1, true},
    {"tilelang_ns2_128x128x64_w4", "shipped", 128, 128, 64, 16, 16, 32, 4, 2, true},
    {"triton_ns3_128x128x64_w4", "shipped", 128, 128, 64, 16, 16, 32, 4, 1, true},
    {"hipkittens_256x256x64_16x32", "calibration", 256, 256, 64, 16, 16, 32, 8, 1, false},
    {"hipkittens_256x256x64_32x16", "calibration", 256, 256, 64, 32, 32, 16, 8, 1, false},
    {"aiter_bf16gemm_bf16_tn_256x256", "calibration", 256, 256, 64, 16, 16, 32, 4, 1, false},
};

// MI355X as HIP would report it; Origami's own gfx950 constants do the rest
// (hardware_t::get_hardware_for_properties, the path hipBLASLt takes on a device).
static int g_mem_clock_khz = 1600000;

static hipDeviceProp_t mi355x_properties() {
  hipDeviceProp_t p;
  std::memset(&p, 0, sizeof(p));
  std::strcpy(p.name, "AMD Instinct MI355X (synthetic properties)");
  std::strcpy(p.gcnArchName, "gfx950:sramecc+:xnack-");
  p.multiProcessorCount = 256;
  p.sharedMemPerBlock   = 160 * 1024;  // LDS per workgroup
  p.clockRate           = 2400000;     // kHz, 2.4 GHz peak engine clock
  p.memoryClockRate     = g_mem_clock_khz;  // kHz; 1.6 GHz = compute clock / mem_clock_ratio 1.5
  p.l2CacheSize         = 4 * 1024 * 1024;  // per XCD
  p.warpSize            = 64;
  return p;
}

struct Terms {
  double L_compute, L_mem, L_mem1, L_mem2, L_mem3;
  double H_l2, H_mall;
  double prologue, main_loop, epilogue, tile, total;
  long num_iter;
  size_t timesteps, active_cus, num_wgs;
};

static Terms evaluate(const problem_t& pb, const hardware_t& hw, const config_t& c) {
  Terms t{};
  context_t ctx(pb, hw, c);
  t.timesteps  = ctx.num_timesteps;
  t.active_cus = ctx.active_cus;
  t.num_wgs    = ctx.num_wgs;

  // --- memory terms, as compute_memory_latency forms them ----------------------
  const double a_bytes = data_type_to_bytes(pb.a_dtype);
  const double b_bytes = data_type_to_bytes(pb.b_dtype);
  const int a_bits     = datatype_to_bits(pb.a_dtype);
  const int b_bits     = datatype_to_bits(pb.b_dtype);
  const bool a_trans   = pb.a_transpose == transpose_t::T;
  const bool b_trans   = pb.b_transpose == transpose_t::T;
  double H1 = std::min(estimate_l2_hit(pb, hw, c, ctx), compute_l2_hit_rate_global(pb, hw, c, ctx));
  if (H1 == 0) H1 = 0.5;
  const double H2 = hw.has_MALL() ? estimate_mall_hit(pb, hw, c, ctx) : 0.0;
  const size_t Ld_A = a_trans ? c.mt.m * round_elements_to_128B(c.mt.k, a_bits)
                              : round_elements_to_128B(c.mt.m, a_bits) * c.mt.k;
  const size_t Ld_B = b_trans ? round_elements_to_128B(c.mt.n, b_bits) * c.mt.k
                              : c.mt.n * round_elements_to_128B(c.mt.k, b_bits);
  const double Ld_CU    = Ld_A * a_bytes + Ld_B * b_bytes;
  const double total_Ld = Ld_CU * static_cast<double>(ctx.active_cus);
  const double L1 = total_Ld / (hw.mem1_perf_ratio * (double(ctx.active_cus) / double(hw.N_CU)));
  double Ld2 = hw.has_MALL() ? (1.0 - H1) * total_Ld : 0.0;
  double LdM = (1.0 - H2) * Ld2;
  const double conc = std::min(double(pb.batch),
                               std::max(double(ctx.active_cus) / (ctx.grid_m * ctx.grid_n), 1.));
  const double min_load =
      double((ctx.mall_tiles_m * c.mt.mk() * a_bytes) + (ctx.mall_tiles_n * c.mt.nk() * b_bytes)) *
      conc;
  LdM = std::max(LdM, min_load);
  Ld2 = std::max(Ld2, min_load);
  const double L2 = Ld2 / (hw.mem2_perf_ratio * ctx.mem_bw_limited);
  const double L3 = LdM / (hw.mem3_perf_ratio * ctx.mem_bw_limited) + 200;
  t.L_mem1 = L1;
  t.L_mem2 = L2;
  t.L_mem3 = L3;
  t.H_l2   = H1;
  t.H_mall = H2;
  t.L_mem  = compute_memory_latency(pb, hw, c, ctx);
  if (t.L_mem != std::max({L1, L2, L3})) {
    std::fprintf(stderr, "driver/Origami mismatch in memory latency: %g vs %g\n", t.L_mem,
                 std::max({L1, L2, L3}));
    std::abort();
  }

  // --- tile terms, as compute_tile_latency forms them --------------------------
  t.L_compute        = double(compute_mt_compute_latency(pb, hw, c));
  const double util  = calculate_work_utilization(pb, c);
  const double pen   = util > 1e-9 ? 1.0 / util : 1.0;
  const size_t real_occ = std::min(
      std::max(c.occupancy, 1),
      int(math::safe_ceil_div(ctx.grid_m * ctx.grid_n * pb.batch * ctx.splitting_factor, hw.N_CU)));
  t.prologue = 1.5 * t.L_mem * std::pow(0.95, real_occ) * pen;
  const long k_per_split = long(math::safe_ceil_div(pb.size.k, ctx.splitting_factor));
  t.num_iter = std::max(long(math::safe_ceil_div(size_t(k_per_split), c.mt.k)) - 1, 1L);
  t.main_loop = std::max(t.L_compute, t.L_mem) * 1.0 * pen * double(t.num_iter);
  t.epilogue  = compute_epilogue_latency(pb, hw, c, ctx);
  t.tile      = compute_tile_latency(pb, hw, c, ctx);
  const double recomposed = 1 + t.prologue + t.main_loop + t.epilogue;
  if (std::fabs(recomposed - t.tile) > 1e-6 * t.tile) {
    std::fprintf(stderr, "driver/Origami mismatch in tile latency: %g vs %g\n", recomposed, t.tile);
    std::abort();
  }
  t.total = compute_total_latency(pb, hw, c, hw.N_CU);
  if (std::fabs(t.total - t.tile * double(t.timesteps)) > 1e-6 * t.total) {
    std::fprintf(stderr, "driver/Origami mismatch in total latency: %g vs %g x %zu\n", t.total,
                 t.tile, t.timesteps);
    std::abort();
  }
  return t;
}

static const char* mem_level(const Terms& t) {
  if (t.L_mem == t.L_mem1) return "L2";
  if (t.L_mem == t.L_mem2) return "MALL";
  return "HBM";
}

int main(int argc, char** argv) {
  const char* csv_path = nullptr;
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
    else if (!std::strcmp(argv[i], "--mem-clock-khz") && i + 1 < argc)
      g_mem_clock_khz = std::atoi(argv[++i]);

  const hipDeviceProp_t props = mi355x_properties();
  const hardware_t hw_origami = hardware_t::get_hardware_for_properties(props);
  // Variant: the same, with HBM set to 8 TB/s at 2.4 GHz instead of Origami's calibrated ratio.
  const hardware_t hw_hbm8(hw_origami.arch, hw_origami.N_CU, hw_origami.lds_capacity,
                           hw_origami.NUM_XCD, hw_origami.mem1_perf_ratio,
                           hw_origami.mem2_perf_ratio, 8.0e12 / 2.4e9, hw_origami.L2_capacity,
                           hw_origami.MALL_capacity, hw_origami.compute_clock_ghz,
                           hw_origami.parallel_mi_cu, hw_origami.mem_bw_per_wg_coefficients);

  const hardware_t& hw = hw_origami;
  std::printf("# hardware_t (hardware_t::get_hardware_for_properties, Origami's gfx950 constants)\n");
  std::printf("arch gfx950, N_CU %zu, NUM_XCD %zu, CU_per_L2 %zu, LDS %zu B, L2 %zu B, MALL %zu B\n",
              hw.N_CU, hw.NUM_XCD, hw.CU_per_L2, hw.lds_capacity, hw.L2_capacity,
              hw.MALL_capacity);
  std::printf("compute clock %.3f GHz, parallel_mi_cu %zu, mem_bw_per_wg (%g, %g, %g)\n",
              hw.compute_clock_ghz, hw.parallel_mi_cu, std::get<0>(hw.mem_bw_per_wg_coefficients),
              std::get<1>(hw.mem_bw_per_wg_coefficients),
              std::get<2>(hw.mem_bw_per_wg_coefficients));
  std::printf("mem1 (L2) %.1f B/clk = %.2f TB/s, mem2 (MALL) %.1f B/clk = %.2f TB/s, "
              "mem3 (HBM) %.1f B/clk = %.2f TB/s (at the compute clock)\n",
              hw.mem1_perf_ratio, hw.mem1_perf_ratio * hw.compute_clock_ghz / 1e3,
              hw.mem2_perf_ratio, hw.mem2_perf_ratio * hw.compute_clock_ghz / 1e3,
              hw.mem3_perf_ratio, hw.mem3_perf_ratio * hw.compute_clock_ghz / 1e3);
  for (auto mi : {dim3_t{16, 16, 32}, dim3_t{32, 32, 16}}) {
    const size_t l = hw.get_mi_latency(mi.m, mi.n, mi.k, data_type_t::BFloat16);
    std::printf("MI %zux%zux%zu bf16: %zu cycles per CU (table / parallel_mi_cu) -> peak %.0f "
                "TFLOP/s\n",
                mi.m, mi.n, mi.k, l,
                2.0 * mi.m * mi.n * mi.k / l * hw.N_CU * hw.compute_clock_ghz * 1e9 / 1e12);
  }
  std::printf("heuristics_enabled %d (ANALYTICAL_GEMM_HEURISTICS)\n\n",
              int(runtime_options::get().heuristics_enabled));

  FILE* csv = csv_path ? std::fopen(csv_path, "w") : nullptr;
  if (csv)
    std::fprintf(csv,
                 "config,kind,shape,d_type,native_d,mt,mi,waves,occupancy,lds_fits,num_wgs,"
                 "timesteps,num_iter,L_compute_per_iter,L_mem_per_iter,mem_level,L_l2,L_mall,"
                 "L_hbm,H_l2,H_mall,prologue,main_loop,epilogue,tile,total_cycles,time_us,tflops,"
                 "main_share,epilogue_share,iter_bound,tflops_hbm8,tflops_no_epilogue\n");

  std::printf("| config | shape | D | MT | MI | waves | WG/CU | time (us) | TFLOP/s | "
              "TFLOP/s without epilogue | per-iteration bound | main / prologue / epilogue | "
              "TFLOP/s, HBM 8 TB/s |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (size_t n : {size_t(4096), size_t(8192)}) {
    for (const Cfg& k : kConfigs) {
      for (data_type_t d : {data_type_t::Float, data_type_t::BFloat16}) {
        problem_t pb;
        pb.size        = {n, n, n};
        pb.batch       = 1;
        pb.a_transpose = transpose_t::T;  // A is M x K, K contiguous ("nt" / "tn" layouts)
        pb.b_transpose = transpose_t::N;  // B is N x K, K contiguous
        pb.a_dtype = pb.b_dtype = data_type_t::BFloat16;
        pb.c_dtype = pb.d_dtype = d;
        pb.mi_dtype             = data_type_t::BFloat16;

        config_t c;
        c.mt             = {k.mt_m, k.mt_n, k.mt_k};
        c.mi             = {k.mi_m, k.mi_n, k.mi_k};
        c.occupancy      = k.occupancy;
        c.grid_selection = grid_selection_t::data_parallel;  // one workgroup per output tile

        const Terms t  = evaluate(pb, hw, c);
        const Terms t8 = evaluate(pb, hw_hbm8, c);
        const double flop  = 2.0 * double(n) * n * n;
        const double secs  = t.total / (hw.compute_clock_ghz * 1e9);
        const double tf    = flop / secs / 1e12;
        const double tf8   = flop / (t8.total / (hw.compute_clock_ghz * 1e9)) / 1e12;
        const double no_epi_cycles = (t.total - t.epilogue * double(t.timesteps));
        const double tf_noepi = flop / (no_epi_cycles / (hw.compute_clock_ghz * 1e9)) / 1e12;
        const bool native  = (d == data_type_t::Float) == k.native_f32;
        const char* bound  = t.L_compute >= t.L_mem ? "MFMA" : mem_level(t);
        const bool lds_ok  = check_lds_capacity(hw, c.mt, pb.a_dtype, pb.b_dtype);
        const char* dname  = d == data_type_t::Float ? "f32" : "bf16";
        char shape[32];
        std::snprintf(shape, sizeof shape, "%zu^3", n);
        std::printf("| %s%s | %s | %s | %zux%zux%zu | %zux%zux%zu | %d | %d | %.1f | %.0f | %.0f | %s "
                    "(MFMA %.0f vs mem %.0f clk/iter, %s) | %.0f / %.0f / %.0f %% | %.0f |\n",
                    k.name, native ? "" : " (D not native)", shape, dname, k.mt_m, k.mt_n, k.mt_k,
                    k.mi_m, k.mi_n, k.mi_k, k.waves, k.occupancy, secs * 1e6, tf, tf_noepi, bound,
                    t.L_compute, t.L_mem, mem_level(t),
                    100 * t.main_loop * t.timesteps / t.total,
                    100 * t.prologue * t.timesteps / t.total,
                    100 * t.epilogue * t.timesteps / t.total, tf8);
        if (csv)
          std::fprintf(csv,
                       "%s,%s,%s,%s,%d,%zux%zux%zu,%zux%zux%zu,%d,%d,%d,%zu,%zu,%ld,%.1f,%.1f,%s,"
                       "%.1f,%.1f,%.1f,%.4f,%.4f,%.1f,%.1f,%.1f,%.1f,%.1f,%.3f,%.1f,%.3f,%.3f,%s,"
                       "%.1f,%.1f\n",
                       k.name, k.kind, shape, dname, int(native), k.mt_m, k.mt_n, k.mt_k, k.mi_m,
                       k.mi_n, k.mi_k, k.waves, k.occupancy, int(lds_ok), t.num_wgs, t.timesteps,
                       t.num_iter, t.L_compute, t.L_mem, mem_level(t), t.L_mem1, t.L_mem2,
                       t.L_mem3, t.H_l2, t.H_mall, t.prologue, t.main_loop, t.epilogue, t.tile,
                       t.total, secs * 1e6, tf, t.main_loop * t.timesteps / t.total,
                       t.epilogue * t.timesteps / t.total, bound, tf8, tf_noepi);
      }
    }
  }
  if (csv) std::fclose(csv);
  return 0;
}
