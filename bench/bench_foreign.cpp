// Foreign bf16 GEMM code objects on the emulator, next to our own shipped
// schedule: HipKittens' MI350X 256x256x64 kernels and AITER's hand-written
// gfx950 bf16gemm kernels. This file holds only facts about those kernels
// (names, kernarg offsets, grids, data layouts); the code objects come from the
// user's directories, built and fetched as docs/emulator.md ("Foreign kernels")
// describes:
//
//   bench_foreign [--hipkittens DIR] [--aiter DIR] [--only SUBSTRING]
//
// (--only runs the rows whose "kernel MxNxK" contains SUBSTRING.)
//
// Every kernel runs twice per emulator mode (randomized completion with race
// reports, and instant completion) on two data sets:
// - integers: A in [-4, 4], B in [-3, 3]; every partial sum is an integer below
//   2^24, so each is exact in fp32 in any order (split-K included) and the
//   output must equal the CPU reference bit for bit (fp32, or the exact sum
//   rounded to bf16 as the kernel rounds: to nearest even, or truncated);
// - random: bf16 uniform in [-1, 1); reported as elements differing from the
//   emulator's MFMA policy (cdna4::reference_gemm: one fp32 FMA chain per
//   element in k order, then the output rounding) and the largest absolute
//   error against a double-precision sum.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cdna4/gemm.hpp"
#include "cdna4/reference.hpp"
#include "cdna4/runtime.hpp"
#include "cdna4/schedule.hpp"

namespace {

// ---- data ----

struct Data {
  int64_t m, n, k;
  std::vector<uint16_t> a;  // M x K row-major bf16
  std::vector<uint16_t> b;  // N x K row-major bf16 (every kernel here computes A * B^T)
  std::vector<float> policy;    // M x N, cdna4::reference_gemm
  std::vector<double> exact;    // M x N, double sums (random data only)
  bool integers;
};

Data make_data(int64_t m, int64_t n, int64_t k, bool integers) {
  Data d{m, n, k, std::vector<uint16_t>(size_t(m * k)), std::vector<uint16_t>(size_t(n * k)), {}, {}, integers};
  std::mt19937 rng(uint32_t(m * 31 + n * 7 + k));
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  auto fill = [&](std::vector<uint16_t>& v, int modulus, int offset) {
    for (size_t i = 0; i < v.size(); ++i) {
      const float x = integers ? float(int((i * 2654435761u >> 7) % size_t(modulus)) - offset) : uniform(rng);
      v[i] = cdna4::float_to_bf16(x);
    }
  };
  fill(d.a, 9, 4);
  fill(d.b, 7, 3);
  std::vector<uint16_t> b_kn(d.b.size());
  for (int64_t j = 0; j < n; ++j)
    for (int64_t x = 0; x < k; ++x) b_kn[size_t(x * n + j)] = d.b[size_t(j * k + x)];
  d.policy = cdna4::reference_gemm(d.a, b_kn, m, n, k);
  if (!integers) {
    d.exact.resize(size_t(m * n));
    std::vector<double> row(static_cast<size_t>(k));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t x = 0; x < k; ++x) row[size_t(x)] = cdna4::bf16_to_float(d.a[size_t(i * k + x)]);
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        const uint16_t* bj = &d.b[size_t(j * k)];
        for (int64_t x = 0; x < k; ++x) s += row[size_t(x)] * double(cdna4::bf16_to_float(bj[x]));
        d.exact[size_t(i * n + j)] = s;
      }
    }
  }
  return d;
}

const Data& data_for(int64_t m, int64_t n, int64_t k, bool integers) {
  static std::map<std::tuple<int64_t, int64_t, int64_t, bool>, Data> cache;
  auto key = std::make_tuple(m, n, k, integers);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, make_data(m, n, k, integers)).first;
  return it->second;
}

// B (N x K) in AITER's shuffle_weight(layout=(16, 16)) order for bf16
// (aiter/ops/shuffle.py): view as [N/16][16][K/32][4][8], permute to
// [N/16][K/32][4][16][8]: 16 rows x 16 bytes of k per 256-byte block.
std::vector<uint16_t> aiter_preshuffle(const std::vector<uint16_t>& b, int64_t n, int64_t k) {
  std::vector<uint16_t> out(b.size());
  size_t o = 0;
  for (int64_t n0 = 0; n0 < n / 16; ++n0)
    for (int64_t k0 = 0; k0 < k / 32; ++k0)
      for (int64_t kk = 0; kk < 4; ++kk)
        for (int64_t n1 = 0; n1 < 16; ++n1)
          for (int64_t e = 0; e < 8; ++e) out[o++] = b[size_t((n0 * 16 + n1) * k + k0 * 32 + kk * 8 + e)];
  return out;
}

// ---- kernels ----

// What one launch returns: C as raw bits (M x N row-major) and the stats.
struct Output {
  std::vector<uint8_t> c;
  cdna4::LaunchStats stats;
};

// How a kernel writes C: fp32, or bf16 rounded to nearest even or truncated.
enum class Out { f32, bf16_rne, bf16_truncate };

struct Case {
  std::string name;
  int64_t m, n, k;
  Out out;
  std::string note;  // launch parameters worth printing (split-K)
  std::function<Output(cdna4::Device&, const Data&, cdna4::LaunchOptions)> run;
};

cdna4::Buffer upload(cdna4::Device& dev, const std::vector<uint16_t>& v) {
  cdna4::Buffer b = dev.alloc(v.size() * 2);
  b.upload(v);
  return b;
}

// An output buffer filled with 0xff bytes (NaN), so elements a kernel never
// writes show up as mismatches.
cdna4::Buffer poisoned(cdna4::Device& dev, size_t bytes) {
  cdna4::Buffer b = dev.alloc(bytes);
  std::vector<uint8_t> ff(bytes, 0xff);
  b.upload(ff);
  return b;
}

// HipKittens, github.com/HazyResearch/HipKittens @ f09e9685c4c6aaa41fb3ebd4fe4ca664938589e1,
// kernels/gemm/bf16fp32/mi350x/256_256_64_32_with{16x32,32x16}.cpp: kernel
// _Z8micro_tk13micro_globals, shape fixed at compile time (M = N = K), one by-value
// argument `micro_globals` of 152 bytes: three kittens::gl<bf16, -1, -1, -1, -1>
// (a at 0, b at 48, c at 96; each: data pointer +0, batch +8, depth +16,
// rows +24, cols +32, all 8 bytes, 8 bytes of padding) and hipStream_t at 144
// (unused). a = A (M x K), b = B (N x K), c = C (M x N) bf16, all row-major with
// batch = depth = 1: C = A * B^T, fp32 accumulation, C stored as the top 16 bits
// of the fp32 sum (truncation: convertor<bf16, float> in
// include/common/base_types.cuh is "truncation only"). Grid
// (N/256)*(M/256) workgroups in x, block 512 (8 waves, 2 x 4), dynamic LDS
// 160000 bytes (MAX_SHARED_MEMORY). 16x32: v_mfma_f32_16x16x32_bf16, LDS
// As[2][2]/Bs[2][2] of 128x64; 32x16: v_mfma_f32_32x32x16_bf16, As[2]/Bs[2] of
// 256x64. The 32x16 kernel's XCD remap (wgid % 8) * (NUM_WGS / 8) + wgid / 8
// needs a multiple of 8 workgroups, so its 512^3 build maps all 4 to tile 0.
Case hipkittens_case(const std::string& dir, const std::string& variant, int64_t size) {
  const std::string file = fmt::format("{}/hipkittens_256x256x64_{}_{}.hsaco", dir, variant, size);
  Case c{"hipkittens " + variant, size, size, size, Out::bf16_truncate, "", {}};
  c.run = [file, size](cdna4::Device& dev, const Data& d, cdna4::LaunchOptions opt) {
    static std::map<std::string, cdna4::Kernel> kernels;
    if (!kernels.count(file)) kernels.emplace(file, cdna4::Kernel::from_file(file));
    cdna4::Buffer a = upload(dev, d.a), b = upload(dev, d.b), out = poisoned(dev, size_t(size * size * 2));
    cdna4::KernargBlock g(152);
    auto gl = [&](size_t at, const cdna4::Buffer& buf, uint64_t rows, uint64_t cols) {
      g.pointer(at, buf).put<uint64_t>(at + 8, 1).put<uint64_t>(at + 16, 1);
      g.put<uint64_t>(at + 24, rows).put<uint64_t>(at + 32, cols);
    };
    gl(0, a, uint64_t(size), uint64_t(size));
    gl(48, b, uint64_t(size), uint64_t(size));
    gl(96, out, uint64_t(size), uint64_t(size));
    opt.dynamic_lds = 160000;
    Output o;
    o.stats = dev.launch(kernels.at(file), {uint32_t((size / 256) * (size / 256))}, {512}, g, opt);
    o.c = out.download<uint8_t>();
    return o;
  };
  return c;
}

// AITER, github.com/ROCm/aiter @ e4048607a535ace3a2b51ded31b1c8c2d45c0879:
// hsa/gfx950/bf16gemm/*.co (one kernel each, _ZN5aiter<len><file stem>E) with
// bf16gemm_fp32bf16.csv, launched as csrc/py_itfs_cu/asm_gemm_a16w16.cu does.
// Kernarg: struct KernelArgs, every field in its own 16-byte slot:
//   D 0, C 16, A 32, B 48 (pointers); alpha 64, beta 80 (float); stride_D0 96,
//   stride_D1 112, stride_C0 128, stride_C1 144, stride_A0 160, stride_A1 176,
//   stride_B0 192, stride_B1 208 (u32, bytes); M 224, N 240, K 256, splitk 272,
//   is_out_b16 288 (u32); Bias 304 (pointer); add_bias 320 (u32); semaphore 336
//   (pointer; only in the 352-byte kernels, the others' kernarg is 336 bytes).
// The launcher sets C = 0, alpha = 1, beta = 0, stride_D0 = stride_C0 = N * out
// element size, stride_A0 = stride_B0 = K * 2, the *1 strides 0, no bias.
// A = M x K, B = N x K (row-major, or pre-shuffled when the csv's bPreshuffle
// is 1: the "bpreshuffle"/"bshuffle" kernels), D = M x N row-major, fp32 or bf16
// (is_out_b16). Grid (N / tileN, ceil(M / tileM), splitK), block 256, LDS fixed
// by the code object (160 KiB for 256x256, 64 KiB for the others). Constraints:
// K % 64 == 0, N % tileN == 0. splitK: 1 for kernels whose csv splitK is 0; for
// the others (the _clean kernels) max(2, min(CUs / tiles, 16, K / 64)) with the
// tile count ceil(M / tileM) * N / tileN (CUs = 256 on MI355X), and then a
// zeroed semaphore of 16 x 64 u32 (one per output tile, grid x * y <= 1024):
// split 0 zeroes its D tile and stores splitK to its semaphore, every split
// waits for it, adds its partial with global_atomic_add_f32 (pk_add_bf16 for
// bf16 D) and decrements it (s_atomic_dec), so it is 0 again at the end.
struct AiterKernel {
  const char* stem;
  int tile_m, tile_n;
  bool preshuffle, split;  // csv bPreshuffle and splitK columns
};
const AiterKernel kAiterKernels[] = {
    {"bf16gemm_bf16_tn_256x256", 256, 256, false, false},
    {"bf16gemm_bf16_tn_256x256_bpreshuffle", 256, 256, true, false},
    {"bf16gemm_fp32bf16_tn_32x64_pf3_splitk", 32, 64, false, false},
    {"bf16gemm_fp32bf16_tn_48x64_pf3_splitk", 48, 64, false, false},
    {"bf16gemm_fp32bf16_tn_64x64_pf3_splitk", 64, 64, false, false},
    {"bf16gemm_fp32bf16_tn_96x64_pf3_splitk", 96, 64, false, false},
    {"bf16gemm_fp32bf16_tn_32x64_bshuffle_splitk", 32, 64, true, false},
    {"bf16gemm_fp32bf16_tn_48x64_bshuffle_splitk", 48, 64, true, false},
    {"bf16gemm_fp32bf16_tn_64x64_bshuffle_splitk", 64, 64, true, false},
    {"bf16gemm_fp32bf16_tn_96x64_bshuffle_splitk", 96, 64, true, false},
    {"bf16gemm_fp32bf16_tn_128x64_bshuffle_splitk", 128, 64, true, false},
    {"bf16gemm_fp32bf16_tn_160x64_bshuffle_splitk", 160, 64, true, false},
    {"bf16gemm_fp32bf16_tn_32x64_splitk_clean", 32, 64, false, true},
    {"bf16gemm_fp32bf16_tn_48x64_splitk_clean", 48, 64, false, true},
    {"bf16gemm_fp32bf16_tn_64x64_splitk_clean", 64, 64, false, true},
    {"bf16gemm_fp32bf16_tn_80x64_splitk_clean", 80, 64, false, true},
    {"bf16gemm_fp32bf16_tn_96x64_splitk_clean", 96, 64, false, true},
    {"bf16gemm_fp32bf16_tn_32x64_bshuffle_splitk_clean", 32, 64, true, true},
    {"bf16gemm_fp32bf16_tn_48x64_bshuffle_splitk_clean", 48, 64, true, true},
    {"bf16gemm_fp32bf16_tn_64x64_bshuffle_splitk_clean", 64, 64, true, true},
    {"bf16gemm_fp32bf16_tn_80x64_bshuffle_splitk_clean", 80, 64, true, true},
    {"bf16gemm_fp32bf16_tn_96x64_bshuffle_splitk_clean", 96, 64, true, true},
    {"bf16gemm_fp32bf16_tn_128x64_bshuffle_splitk_clean", 128, 64, true, true},
    {"bf16gemm_fp32bf16_tn_160x64_bshuffle_splitk_clean", 160, 64, true, true},
};

// 256x256: bf16 D at 512^3 and 1024^3. The others: fp32 D, M = 2 * tileM,
// N = 256, K = 1024 (tiles = 8, so splitK = 16 for the _clean kernels).
std::vector<Case> aiter_cases(const std::string& dir, const AiterKernel& ak) {
  const bool big = ak.tile_n == 256;
  std::vector<Case> cases;
  for (int64_t size : big ? std::vector<int64_t>{512, 1024} : std::vector<int64_t>{0}) {
    const int64_t m = big ? size : 2 * ak.tile_m, n = big ? size : 256, k = big ? size : 1024;
    const int64_t tiles = (m + ak.tile_m - 1) / ak.tile_m * (n / ak.tile_n);
    const uint32_t split = ak.split ? uint32_t(std::max<int64_t>(2, std::min({256 / tiles, int64_t(16), k / 64}))) : 1;
    const std::string file = fmt::format("{}/{}.co", dir, ak.stem);
    Case c{fmt::format("aiter {}", std::string(ak.stem).substr(9)), m, n, k, big ? Out::bf16_rne : Out::f32,
           split > 1 ? fmt::format("splitK {}", split) : "", {}};
    c.run = [file, ak, m, n, k, split, big](cdna4::Device& dev, const Data& d, cdna4::LaunchOptions opt) {
      static std::map<std::string, cdna4::Kernel> kernels;
      if (!kernels.count(file)) kernels.emplace(file, cdna4::Kernel::from_file(file));
      const cdna4::Kernel& kernel = kernels.at(file);
      const uint32_t out_bytes = big ? 2 : 4;
      cdna4::Buffer a = upload(dev, d.a), b = upload(dev, ak.preshuffle ? aiter_preshuffle(d.b, n, k) : d.b);
      cdna4::Buffer out = poisoned(dev, size_t(m * n) * out_bytes), sema = dev.alloc(16 * 64 * 4);
      sema.fill_zero();
      cdna4::KernargBlock g(kernel.info().kernarg_bytes());
      g.pointer(0, out).put<uint64_t>(16, 0).pointer(32, a).pointer(48, b).put<float>(64, 1.0f).put<float>(80, 0.0f);
      g.put<uint32_t>(96, uint32_t(n) * out_bytes).put<uint32_t>(128, uint32_t(n) * out_bytes);
      g.put<uint32_t>(160, uint32_t(k) * 2).put<uint32_t>(192, uint32_t(k) * 2);
      g.put<uint32_t>(224, uint32_t(m)).put<uint32_t>(240, uint32_t(n)).put<uint32_t>(256, uint32_t(k));
      g.put<uint32_t>(272, split).put<uint32_t>(288, big ? 1 : 0).put<uint64_t>(304, 0).put<uint32_t>(320, 0);
      if (g.size() >= 344) g.put<uint64_t>(336, split > 1 ? sema.address() : 0);
      const cdna4::Dim3 grid(uint32_t(n / ak.tile_n), uint32_t((m + ak.tile_m - 1) / ak.tile_m), split);
      Output o;
      o.stats = dev.launch(kernel, grid, {256}, g, opt);
      o.c = out.download<uint8_t>();
      return o;
    };
    cases.push_back(std::move(c));
  }
  return cases;
}

// Ours: schedules/baseline_256x256x64_w8.json through cdna4::compile, bf16 C.
Case own_case(int64_t size) {
  Case c{"ours baseline_256x256x64_w8", size, size, size, Out::bf16_rne, "", {}};
  c.run = [size](cdna4::Device& dev, const Data& d, cdna4::LaunchOptions opt) {
    static std::map<int64_t, cdna4::GemmKernel> kernels;
    if (!kernels.count(size)) {
      cdna4::GemmShape shape{size, size, size};
      shape.out = cdna4::OutType::bf16;
      cdna4::Schedule s = cdna4::load_schedule(std::string(CDNA4_SOURCE_DIR) + "/schedules/baseline_256x256x64_w8.json");
      kernels.emplace(size, cdna4::compile(s, shape));
    }
    const cdna4::GemmKernel& k = kernels.at(size);
    cdna4::Buffer a = upload(dev, d.a), b = upload(dev, d.b), out = poisoned(dev, size_t(size * size * 2));
    Output o;
    o.stats = dev.launch(k.kernel, k.grid, k.block, {a, b, out}, opt);
    o.c = out.download<uint8_t>();
    return o;
  };
  return c;
}

// ---- running and reporting ----

float element(const std::vector<uint8_t>& c, size_t i, bool bf16) {
  if (bf16) {
    uint16_t h;
    std::memcpy(&h, &c[2 * i], 2);
    return cdna4::bf16_to_float(h);
  }
  float f;
  std::memcpy(&f, &c[4 * i], 4);
  return f;
}

// The reference's output bits: cdna4::to_output_bits, or truncated to bf16.
std::vector<uint8_t> expected_bits(const std::vector<float>& c, Out out) {
  if (out != Out::bf16_truncate) return cdna4::to_output_bits(c, out == Out::bf16_rne);
  std::vector<uint8_t> bytes(c.size() * 2);
  for (size_t i = 0; i < c.size(); ++i) {
    uint32_t u;
    std::memcpy(&u, &c[i], 4);
    const uint16_t h = uint16_t(u >> 16);
    std::memcpy(&bytes[2 * i], &h, 2);
  }
  return bytes;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

constexpr size_t kMaxReports = 100000;  // per launch

// Reports of one launch: counts of races and of wait-state hazards (a "+"
// when the emulator's cap was reached), the distinct pcs, and the first of each.
struct Reports {
  size_t races = 0, hazards = 0;
  std::set<uint64_t> race_pcs, hazard_pcs;
  std::set<std::string> hazard_rules;  // "M0 written by SALU just before LDS-DMA", ...
  std::string first_race, first_hazard;
  bool capped = false;
  void add(const std::vector<cdna4::RaceReport>& reports) {
    capped = capped || reports.size() >= kMaxReports;
    for (const cdna4::RaceReport& r : reports) {
      const std::string text = first_line(cdna4::describe(r));
      const size_t at = text.find(": hazard: ");
      const bool hazard = at != std::string::npos;
      if (hazard) hazard_rules.insert(text.substr(at + 10, text.find(" needs", at) - at - 10));
      (hazard ? hazards : races)++;
      (hazard ? hazard_pcs : race_pcs).insert(r.pc);
      std::string& first = hazard ? first_hazard : first_race;
      if (first.empty()) first = text;
    }
  }
  std::string count(size_t n, const std::set<uint64_t>& pcs) const {
    return n == 0 ? "0" : fmt::format("{}{} @{} pc", n, capped ? "+" : "", pcs.size());
  }
};

void run_case(const Case& c) {
  cdna4::EmulatorConfig config;
  config.max_races = kMaxReports;
  cdna4::Device dev = cdna4::Device::emulator(config);
  const bool bf16 = c.out != Out::f32;
  std::string shown_reports;
  for (bool instant : {false, true}) {
    cdna4::LaunchOptions opt;
    opt.on_race = cdna4::OnRace::Report;
    opt.instant_completion = instant;
    std::string ints, random, error;
    Reports reports;
    double seconds = 0;
    try {
      for (bool integers : {true, false}) {
        const Data& d = data_for(c.m, c.n, c.k, integers);
        Output o = c.run(dev, d, opt);
        const std::vector<uint8_t> want = expected_bits(d.policy, c.out);
        const size_t diff = cdna4::differing_elements(o.c, want, bf16 ? 2 : 4);
        if (integers) {
          ints = diff == 0 ? "exact" : fmt::format("{} differ", diff);
        } else {
          double err = 0, policy_err = 0;
          for (size_t i = 0; i < d.exact.size(); ++i) {
            const double e = std::fabs(double(element(o.c, i, bf16)) - d.exact[i]);
            err = std::isnan(e) ? INFINITY : std::max(err, e);
            policy_err = std::max(policy_err, std::fabs(double(element(want, i, bf16)) - d.exact[i]));
          }
          random = fmt::format("{} differ, {:.1e} ({:.1e})", diff, err, policy_err);
          seconds = o.stats.seconds;
        }
        reports.add(o.stats.races);
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
    fmt::print("{:<44} {:>14} {:<10}", c.name, fmt::format("{}x{}x{}", c.m, c.n, c.k),
               instant ? "instant" : "randomized");
    if (!error.empty()) {
      fmt::print(" stops: {}\n", first_line(error));
      continue;
    }
    const double macs = double(c.m) * double(c.n) * double(c.k);
    fmt::print(" {:<12} {:<30} {:>7.3f} {:>7.2f} {:>12} {:>14}{}\n", ints, random, seconds, macs / seconds / 1e9,
               reports.count(reports.races, reports.race_pcs), reports.count(reports.hazards, reports.hazard_pcs),
               c.note.empty() ? "" : "  " + c.note);
    const std::string firsts = reports.first_race + "\n" + reports.first_hazard;
    if (firsts != shown_reports) {  // under the first row that has them
      if (!reports.first_race.empty()) fmt::print("    first race: {}\n", reports.first_race);
      if (!reports.first_hazard.empty()) {
        std::string rules;
        for (const std::string& r : reports.hazard_rules) rules += (rules.empty() ? "" : "; ") + r;
        fmt::print("    hazard rules broken: {}\n    first hazard: {}\n", rules, reports.first_hazard);
      }
      shown_reports = firsts;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string hk_dir, aiter_dir, only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--hipkittens" || arg == "--aiter" || arg == "--only") && i + 1 < argc) {
      (arg == "--hipkittens" ? hk_dir : arg == "--aiter" ? aiter_dir : only) = argv[++i];
    } else {
      fmt::print(stderr, "usage: bench_foreign [--hipkittens DIR] [--aiter DIR] [--only SUBSTRING]\n");
      return 2;
    }
  }
  std::vector<Case> cases;
  for (int64_t size : {512, 1024}) cases.push_back(own_case(size));
  if (!hk_dir.empty())
    for (const char* variant : {"16x32", "32x16"})
      for (int64_t size : {512, 1024}) cases.push_back(hipkittens_case(hk_dir, variant, size));
  if (!aiter_dir.empty())
    for (const AiterKernel& ak : kAiterKernels)
      for (Case& c : aiter_cases(aiter_dir, ak)) cases.push_back(std::move(c));
  fmt::print("random: elements differing from the policy, max |C - double sum| (the policy's own)\n");
  fmt::print("{:<44} {:>14} {:<10} {:<12} {:<30} {:>7} {:>7} {:>12} {:>14}\n", "kernel", "MxNxK", "mode", "integers",
             "random", "emu s", "GMAC/s", "races", "hazards");
  for (const Case& c : cases)
    if (only.empty() || fmt::format("{} {}x{}x{}", c.name, c.m, c.n, c.k).find(only) != std::string::npos) run_case(c);
  return 0;
}
