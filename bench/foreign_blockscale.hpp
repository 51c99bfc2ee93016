#pragma once
// bench_foreign's fp8 blockscale rows: AITER's fp8gemm_bf16_blockscale_BpreShuffle
// and f8_block_scale_mi350 kernels (foreign_kernels.hpp) against their
// launchers' formula computed on the CPU. A and B are small integers in fp8 e4m3 (A in [-4, 4], B in [-3, 3]), the
// scales powers of two (a_scale 2^-2..2^2 per token and k-block, b_scale
// 2^-1..2^2 per 128 x 128 block), the bias zero: every partial sum of a
// k-block is an integer below 2^11, every scaled sum a dyadic rational well
// inside fp32's 24 bits, so the fp32 result is exact in any summation order
// and the output must equal the exact sum converted to bf16 bit for bit. The
// BpreShuffle kernels convert by truncation (v_perm_b32 packs the high halves
// of two fp32 sums), where the launcher's torch reference rounds to nearest
// even (within its test's tolerance); the mi350 kernels round to nearest even.
// Each row compares with the kernel's conversion and counts the elements the
// other conversion would have made different.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "cdna4/reference.hpp"
#include "cdna4/runtime.hpp"
#include "foreign_kernels.hpp"
#include "foreign_reports.hpp"

namespace foreign {

struct BlockscaleData {
  int64_t m, n, k;
  std::vector<uint8_t> a, b;         // fp8 e4m3 codes, M x K and N x K row-major
  std::vector<float> a_scale;        // [K/128][M]
  std::vector<float> b_scale;        // [N/128][K/128]
  std::vector<float> c;              // M x N, the formula in fp32 (exact here)
};

inline BlockscaleData make_blockscale_data(int64_t m, int64_t n, int64_t k) {
  BlockscaleData d{m, n, k, std::vector<uint8_t>(size_t(m * k)), std::vector<uint8_t>(size_t(n * k)), {}, {}, {}};
  auto fill = [](std::vector<uint8_t>& v, int modulus, int offset) {
    for (size_t i = 0; i < v.size(); ++i) {
      const float x = float(int((i * 2654435761u >> 7) % size_t(modulus)) - offset);
      v[i] = uint8_t(cdna4::encode_element(cdna4::DataType::fp8, x));
    }
  };
  fill(d.a, 9, 4);
  fill(d.b, 7, 3);
  const int64_t kb_count = k / 128, nb_count = n / 128;
  d.a_scale.resize(size_t(kb_count * m));
  for (int64_t kb = 0; kb < kb_count; ++kb)
    for (int64_t i = 0; i < m; ++i) d.a_scale[size_t(kb * m + i)] = std::ldexp(1.0f, int((i * 7 + kb * 3) % 5) - 2);
  d.b_scale.resize(size_t(nb_count * kb_count));
  for (int64_t nb = 0; nb < nb_count; ++nb)
    for (int64_t kb = 0; kb < kb_count; ++kb)
      d.b_scale[size_t(nb * kb_count + kb)] = std::ldexp(1.0f, int((nb + kb * 2) % 4) - 1);
  auto value = [](uint8_t code) { return cdna4::decode_element(cdna4::DataType::fp8, code); };
  d.c.resize(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t kb = 0; kb < kb_count; ++kb) {
        float partial = 0.0f;
        for (int64_t x = kb * 128; x < kb * 128 + 128; ++x)
          partial += value(d.a[size_t(i * k + x)]) * value(d.b[size_t(j * k + x)]);
        acc += partial * (d.a_scale[size_t(kb * m + i)] * d.b_scale[size_t((j / 128) * kb_count + kb)]);
      }
      d.c[size_t(i * n + j)] = acc;
    }
  return d;
}

// Elements of `got` (bf16) differing from the reference truncated and rounded
// to nearest even.
struct BlockscaleDiff {
  size_t rne = 0, truncated = 0;
};

inline BlockscaleDiff blockscale_diff(const std::vector<float>& want, const std::vector<uint16_t>& got) {
  BlockscaleDiff diff;
  for (size_t i = 0; i < want.size(); ++i) {
    uint32_t u;
    std::memcpy(&u, &want[i], 4);
    diff.rne += got[i] != cdna4::float_to_bf16(want[i]);
    diff.truncated += got[i] != uint16_t(u >> 16);
  }
  return diff;
}

// "aiter fp8 blockscale 128x128" for fp8gemm_bf16_blockscale_BpreShuffle_128x128.
inline std::string blockscale_row_name(const AiterBlockscale& ab) {
  const std::string stem = ab.stem;
  return "aiter fp8 blockscale " + stem.substr(stem.rfind('_') + 1);
}

using BlockscaleLaunch =
    std::function<cdna4::LaunchStats(cdna4::Device&, const cdna4::Kernel&, const BlockscaleBuffers&, cdna4::LaunchOptions)>;

// b_scale_k_major: b_scale stored [K/128][N/128] rather than [N/128][K/128];
// truncates: the kernel stores bf16 truncated (else rounded to nearest even).
inline void run_blockscale_case(const std::string& name, const std::string& file, int64_t m, int64_t n, int64_t k,
                                bool b_scale_k_major, bool truncates, const BlockscaleLaunch& launch) {
  const BlockscaleData d = make_blockscale_data(m, n, k);
  std::vector<float> b_scale = d.b_scale;
  if (b_scale_k_major)
    for (int64_t nb = 0; nb < n / 128; ++nb)
      for (int64_t kb = 0; kb < k / 128; ++kb)
        b_scale[size_t(kb * (n / 128) + nb)] = d.b_scale[size_t(nb * (k / 128) + kb)];
  cdna4::Device dev = reporting_emulator();
  std::string shown_reports;
  rows_per_mode(name, fmt::format("{}x{}x{}", m, n, k), 14, [&](const cdna4::LaunchOptions& opt) {
    const cdna4::Kernel kernel = cdna4::Kernel::from_file(file);
    cdna4::Buffer a = uploaded(dev, d.a), b = uploaded(dev, aiter_preshuffle(d.b, n, k));
    cdna4::Buffer sa = uploaded(dev, d.a_scale), sb = uploaded(dev, b_scale);
    cdna4::Buffer bias = dev.alloc(size_t(n) * 4);
    bias.fill_zero();
    cdna4::Buffer c = uploaded(dev, std::vector<uint8_t>(size_t(m * n) * 2, 0xff));  // NaN: unwritten shows
    const cdna4::LaunchStats stats = launch(dev, kernel, BlockscaleBuffers{a, b, sa, sb, bias, c}, opt);
    const BlockscaleDiff diff = blockscale_diff(d.c, c.download<uint16_t>());
    Reports reports;
    reports.add(stats);
    const size_t differ = truncates ? diff.truncated : diff.rne, other = truncates ? diff.rne : diff.truncated;
    fmt::print(" {:<12} {:<30} {:>7.3f} {:>7.2f} {:>12} {:>14}\n",
               differ == 0 ? "exact" : fmt::format("{} differ", differ),
               fmt::format("({} differ from {})", other, truncates ? "RNE" : "truncation"), stats.seconds,
               double(m) * double(n) * double(k) / stats.seconds / 1e9, reports.races_column(),
               reports.hazards_column());
    reports.print_firsts(shown_reports);
  });
}

// BpreShuffle kernels: M = 2 * tileM (two row tiles), N = 256, K = 512 (four
// k-blocks, two b_scale columns). mi350 kernels: M = 2 * tileM, N = 512 (two
// column tiles of 256), K = 512.
inline void run_blockscale_rows(const std::string& aiter_dir, const std::function<bool(const std::string&)>& wanted) {
  if (aiter_dir.empty()) return;
  fmt::print("\nfp8 blockscale: integers, power-of-two scales; elements differing from the formula converted to bf16 "
             "as the kernel converts (BpreShuffle: truncation, mi350: to nearest even)\n");
  auto row = [&](const std::string& name, int64_t m, int64_t n, int64_t k) {
    return wanted(fmt::format("{} {}x{}x{}", name, m, n, k));
  };
  for (const AiterBlockscale& ab : kAiterBlockscale) {
    const int64_t m = 2 * ab.tile_m, n = 256, k = 512;
    const std::string file = aiter_dir + "/fp8gemm_blockscale/" + ab.stem + ".co";
    if (row(blockscale_row_name(ab), m, n, k))
      run_blockscale_case(blockscale_row_name(ab), file, m, n, k, false, true,
                          [&](cdna4::Device& dev, const cdna4::Kernel& kernel, const BlockscaleBuffers& io,
                              cdna4::LaunchOptions opt) {
                            return launch_aiter_blockscale(dev, kernel, ab, m, n, k, io, opt);
                          });
  }
  for (int tile_m : {128, 32}) {
    const int64_t m = 2 * tile_m, n = 512, k = 512;
    const std::string name = fmt::format("aiter f8_block_scale_mi350_x{}", tile_m);
    if (row(name, m, n, k))
      run_blockscale_case(name, fmt::format("{}/f8_block_scale_mi350_x{}.co", aiter_dir, tile_m), m, n, k,
                          false, false,
                          [&](cdna4::Device& dev, const cdna4::Kernel& kernel, const BlockscaleBuffers& io,
                              cdna4::LaunchOptions opt) {
                            return launch_aiter_blockscale_mi350(dev, kernel, tile_m, m, n, k, io, opt);
                          });
  }
}

}  // namespace foreign
