// Foreign code objects on the emulator, next to our own shipped schedule:
// HipKittens' MI350X 256x256x64 bf16 GEMMs, its fp8 8-wave GEMM
// (compiler-spilled: it uses the private segment) and attention forward, and
// AITER's hand-written gfx950 bf16gemm kernels and attention forward. This
// file holds only facts about those kernels (names, kernarg offsets, grids,
// data layouts); the code objects come from the user's directories, built and
// fetched as docs/emulator.md ("Foreign kernels") describes:
//
//   bench_foreign [--hipkittens DIR] [--aiter DIR] [--aiter-gfx950 DIR] [--only SUBSTRING]
//
// (--aiter: AITER's hsa/gfx950/bf16gemm; --aiter-gfx950: its hsa/gfx950, for
// the fp8 blockscale GEMMs and the attention kernels; --only runs the rows whose
// "kernel problem" contains SUBSTRING.) Blockscale rows: foreign_blockscale.hpp;
// attention rows: foreign_attention.hpp, foreign_attention_bwd.hpp,
// foreign_attention_mxfp4.hpp.
//
// Every kernel runs twice in each emulator mode (foreign_reports.hpp: randomized
// completion with race reports, instant completion, timed) on two data sets:
// - integers: A in [-4, 4], B in [-3, 3]; every partial sum is an integer below
//   2^24, so each is exact in fp32 in any order (split-K included) and the
//   output must equal the CPU reference bit for bit (fp32, or the exact sum
//   rounded to bf16 as the kernel rounds: to nearest even, or truncated);
// - random: bf16 (fp8 e4m3 for the fp8 kernel) uniform in [-1, 1); reported as elements differing from the
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
#include "foreign_attention.hpp"
#include "foreign_attention_bwd.hpp"
#include "foreign_attention_mxfp4.hpp"
#include "foreign_blockscale.hpp"
#include "foreign_reports.hpp"
#include "foreign_kernels.hpp"

namespace {

// ---- data ----

// Operands in bf16 (a, b) or, for the fp8 kernels, OCP fp8 e4m3 codes (a8, b8).
struct Data {
  int64_t m, n, k;
  std::vector<uint16_t> a;  // M x K row-major bf16
  std::vector<uint16_t> b;  // N x K row-major bf16 (every kernel here computes A * B^T)
  std::vector<float> policy;    // M x N, cdna4::reference_gemm
  std::vector<double> exact;    // M x N, double sums (random data only)
  bool integers;
  std::vector<uint8_t> a8, b8;  // fp8 operands, same shapes
};

Data make_data(int64_t m, int64_t n, int64_t k, bool integers, bool fp8) {
  Data d{m, n, k, std::vector<uint16_t>(size_t(m * k)), std::vector<uint16_t>(size_t(n * k)), {}, {}, integers, {}, {}};
  std::mt19937 rng(uint32_t(m * 31 + n * 7 + k));
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  // Each element as its operand type sees it: bf16 bits, or the fp8 code in the low byte.
  auto encode = [&](float x) { return fp8 ? uint16_t(cdna4::encode_element(cdna4::DataType::fp8, x)) : cdna4::float_to_bf16(x); };
  auto decode = [&](uint16_t v) { return fp8 ? cdna4::decode_element(cdna4::DataType::fp8, v) : cdna4::bf16_to_float(v); };
  auto fill = [&](std::vector<uint16_t>& v, int modulus, int offset) {
    for (size_t i = 0; i < v.size(); ++i) {
      const float x = integers ? float(int((i * 2654435761u >> 7) % size_t(modulus)) - offset) : uniform(rng);
      v[i] = encode(x);
    }
  };
  fill(d.a, 9, 4);
  fill(d.b, 7, 3);
  std::vector<uint16_t> b_kn(d.b.size());
  for (int64_t j = 0; j < n; ++j)
    for (int64_t x = 0; x < k; ++x) b_kn[size_t(x * n + j)] = d.b[size_t(j * k + x)];
  if (fp8) {
    d.a8.assign(d.a.begin(), d.a.end());
    d.b8.assign(d.b.begin(), d.b.end());
    const std::vector<uint8_t> b8_kn(b_kn.begin(), b_kn.end());
    d.policy = cdna4::reference_gemm(cdna4::DataType::fp8, d.a8, cdna4::DataType::fp8, b8_kn, m, n, k);
  } else {
    d.policy = cdna4::reference_gemm(d.a, b_kn, m, n, k);
  }
  if (!integers) {
    d.exact.resize(size_t(m * n));
    std::vector<double> row(static_cast<size_t>(k));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t x = 0; x < k; ++x) row[size_t(x)] = decode(d.a[size_t(i * k + x)]);
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        const uint16_t* bj = &d.b[size_t(j * k)];
        for (int64_t x = 0; x < k; ++x) s += row[size_t(x)] * double(decode(bj[x]));
        d.exact[size_t(i * n + j)] = s;
      }
    }
  }
  return d;
}

const Data& data_for(int64_t m, int64_t n, int64_t k, bool integers, bool fp8) {
  static std::map<std::tuple<int64_t, int64_t, int64_t, bool, bool>, Data> cache;
  auto key = std::make_tuple(m, n, k, integers, fp8);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, make_data(m, n, k, integers, fp8)).first;
  return it->second;
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
  bool fp8 = false;  // operands are fp8 e4m3 (Data::a8, b8)
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

Case hipkittens_case(const std::string& dir, const std::string& variant, int64_t size) {
  const std::string file = foreign::hipkittens_file(dir, variant, size);
  Case c{"hipkittens " + variant, size, size, size, Out::bf16_truncate, "", {}};
  c.run = [file, size](cdna4::Device& dev, const Data& d, cdna4::LaunchOptions opt) {
    static std::map<std::string, cdna4::Kernel> kernels;
    if (!kernels.count(file)) kernels.emplace(file, cdna4::Kernel::from_file(file));
    cdna4::Buffer a = upload(dev, d.a), b = upload(dev, d.b), out = poisoned(dev, size_t(size * size * 2));
    Output o;
    o.stats = foreign::launch_hipkittens(dev, kernels.at(file), size, a, b, out, opt);
    o.c = out.download<uint8_t>();
    return o;
  };
  return c;
}

// The fp8 8-wave GEMM, compiled for size^3 (it spills: private segment in use).
Case hipkittens_fp8_case(const std::string& dir, int64_t size) {
  const std::string file = foreign::hipkittens_fp8_file(dir, size);
  Case c{"hipkittens fp8 8-wave", size, size, size, Out::bf16_truncate, "", {}, true};
  c.run = [file, size](cdna4::Device& dev, const Data& d, cdna4::LaunchOptions opt) {
    static std::map<std::string, cdna4::Kernel> kernels;
    if (!kernels.count(file)) kernels.emplace(file, cdna4::Kernel::from_file(file));
    cdna4::Buffer a = dev.alloc(d.a8.size()), b = dev.alloc(d.b8.size());
    a.upload(d.a8);
    b.upload(d.b8);
    cdna4::Buffer out = poisoned(dev, size_t(size * size * 2));
    Output o;
    o.stats = foreign::launch_hipkittens_fp8(dev, kernels.at(file), size, size, a, b, out, opt);
    o.c = out.download<uint8_t>();
    return o;
  };
  return c;
}

// 256x256: bf16 D at 512^3 and 1024^3. The others: fp32 D, M = 2 * tileM,
// N = 256, K = 1024 (tiles = 8, so splitK = 16 for the _clean kernels).
std::vector<Case> aiter_cases(const std::string& dir, const foreign::AiterKernel& ak) {
  const bool big = ak.tile_n == 256;
  std::vector<Case> cases;
  for (int64_t size : big ? std::vector<int64_t>{512, 1024} : std::vector<int64_t>{0}) {
    const int64_t m = big ? size : 2 * ak.tile_m, n = big ? size : 256, k = big ? size : 1024;
    const uint32_t split = foreign::aiter_split(ak, m, n, k);
    const std::string file = fmt::format("{}/{}.co", dir, ak.stem);
    Case c{fmt::format("aiter {}", std::string(ak.stem).substr(9)), m, n, k, big ? Out::bf16_rne : Out::f32,
           split > 1 ? fmt::format("splitK {}", split) : "", {}};
    c.run = [file, ak, m, n, k, big](cdna4::Device& dev, const Data& d, cdna4::LaunchOptions opt) {
      static std::map<std::string, cdna4::Kernel> kernels;
      if (!kernels.count(file)) kernels.emplace(file, cdna4::Kernel::from_file(file));
      cdna4::Buffer a = upload(dev, d.a);
      cdna4::Buffer b = upload(dev, ak.preshuffle ? foreign::aiter_preshuffle(d.b, n, k) : d.b);
      cdna4::Buffer out = poisoned(dev, size_t(m * n) * (big ? 2 : 4)), sema = dev.alloc(16 * 64 * 4);
      sema.fill_zero();
      Output o;
      o.stats = foreign::launch_aiter(dev, kernels.at(file), ak, m, n, k, a, b, out, sema, big, opt);
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
      cdna4::GemmShape shape;
      shape.m = shape.n = shape.k = size;
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

using foreign::first_line;
using foreign::Reports;

void run_case(const Case& c) {
  cdna4::Device dev = foreign::reporting_emulator();
  const bool bf16 = c.out != Out::f32;
  std::string shown_reports;
  for (foreign::Mode mode : foreign::kModes) {
    const cdna4::LaunchOptions opt = foreign::reporting_launch(mode);
    std::string ints, random, error;
    Reports reports;
    double seconds = 0;
    try {
      for (bool integers : {true, false}) {
        const Data& d = data_for(c.m, c.n, c.k, integers, c.fp8);
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
        reports.add(o.stats);
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
    fmt::print("{:<44} {:>14} {:<10}", c.name, fmt::format("{}x{}x{}", c.m, c.n, c.k),
               foreign::mode_name(mode));
    if (!error.empty()) {
      fmt::print(" stops: {}\n", first_line(error));
      continue;
    }
    const double macs = double(c.m) * double(c.n) * double(c.k);
    fmt::print(" {:<12} {:<30} {:>7.3f} {:>7.2f} {:>12} {:>14}{}\n", ints, random, seconds, macs / seconds / 1e9,
               reports.races_column(), reports.hazards_column(),
               c.note.empty() ? "" : "  " + c.note);
    reports.print_firsts(shown_reports);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> dirs = {
      {"--hipkittens", ""}, {"--aiter", ""}, {"--aiter-gfx950", ""}, {"--only", ""}};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (dirs.count(arg) && i + 1 < argc) {
      dirs[arg] = argv[++i];
    } else {
      fmt::print(stderr,
                 "usage: bench_foreign [--hipkittens DIR] [--aiter DIR] [--aiter-gfx950 DIR] [--only SUBSTRING]\n");
      return 2;
    }
  }
  const std::string &hk_dir = dirs["--hipkittens"], &aiter_dir = dirs["--aiter"], &only = dirs["--only"];
  std::vector<Case> cases;
  for (int64_t size : {512, 1024}) cases.push_back(own_case(size));
  if (!hk_dir.empty())
    for (const char* variant : {"16x32", "32x16"})
      for (int64_t size : {512, 1024}) cases.push_back(hipkittens_case(hk_dir, variant, size));
  if (!hk_dir.empty()) cases.push_back(hipkittens_fp8_case(hk_dir, 1024));
  if (!aiter_dir.empty())
    for (const foreign::AiterKernel& ak : foreign::kAiterKernels)
      for (Case& c : aiter_cases(aiter_dir, ak)) cases.push_back(std::move(c));
  auto wanted = [&](const std::string& row) { return only.empty() || row.find(only) != std::string::npos; };
  fmt::print("random: elements differing from the policy, max |C - double sum| (the policy's own)\n");
  fmt::print("{:<44} {:>14} {:<10} {:<12} {:<30} {:>7} {:>7} {:>12} {:>14}\n", "kernel", "MxNxK", "mode", "integers",
             "random", "emu s", "GMAC/s", "races", "hazards");
  for (const Case& c : cases)
    if (wanted(fmt::format("{} {}x{}x{}", c.name, c.m, c.n, c.k))) run_case(c);
  foreign::run_blockscale_rows(dirs["--aiter-gfx950"], wanted);
  foreign::run_attention_rows(hk_dir, dirs["--aiter-gfx950"], wanted);
  foreign::run_attention_bwd_rows(dirs["--aiter-gfx950"], wanted);
  foreign::run_mxfp4_rows(dirs["--aiter-gfx950"], wanted);
  return 0;
}
