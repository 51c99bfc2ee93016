#pragma once
// bench_foreign's fp8 blockscale rows: AITER's fp8gemm_bf16_blockscale_BpreShuffle
// kernels (foreign_kernels.hpp) against the launcher's formula computed on the
// CPU. A and B are small integers in fp8 e4m3 (A in [-4, 4], B in [-3, 3]), the
// scales powers of two (a_scale 2^-2..2^2 per token and k-block, b_scale
// 2^-1..2^2 per 128 x 128 block), the bias zero: every partial sum of a
// k-block is an integer below 2^11, every scaled sum a dyadic rational well
// inside fp32's 24 bits, so the fp32 result is exact in any summation order
// and the output must equal the exact sum converted to bf16 bit for bit. The
// kernels convert by truncation (v_perm_b32 packs the high halves of two fp32
// sums), where the launcher's torch reference rounds to nearest even (within its
// test's tolerance): the row compares with truncation and counts the elements
// that round-to-nearest-even would have made different.
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
      d.b_scale[size_t(nb * kb_count + kb)] = std::ldexp(1.0f, int((nb * 5 + kb) % 4) - 1);
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

inline void run_blockscale_case(const std::string& dir, const AiterBlockscale& ab, int64_t m, int64_t n, int64_t k) {
  const std::string file = dir + "/fp8gemm_blockscale/" + ab.stem + ".co";
  const std::string name = blockscale_row_name(ab);
  const BlockscaleData d = make_blockscale_data(m, n, k);
  cdna4::Device dev = reporting_emulator();
  std::string shown_reports;
  for (bool instant : {false, true}) {
    const cdna4::LaunchOptions opt = reporting_launch(instant);
    fmt::print("{:<44} {:>14} {:<10}", name, fmt::format("{}x{}x{}", m, n, k), instant ? "instant" : "randomized");
    try {
      const cdna4::Kernel kernel = cdna4::Kernel::from_file(file);
      cdna4::Buffer a = dev.alloc(d.a.size()), b = dev.alloc(d.b.size());
      a.upload(d.a);
      b.upload(aiter_preshuffle(d.b, n, k));
      cdna4::Buffer sa = dev.alloc(d.a_scale.size() * 4), sb = dev.alloc(d.b_scale.size() * 4);
      sa.upload(d.a_scale);
      sb.upload(d.b_scale);
      cdna4::Buffer bias = dev.alloc(size_t(n) * 4), c = dev.alloc(size_t(m * n) * 2);
      bias.fill_zero();
      c.upload(std::vector<uint8_t>(size_t(m * n) * 2, 0xff));  // NaN: unwritten shows
      const cdna4::LaunchStats stats =
          launch_aiter_blockscale(dev, kernel, ab, m, n, k, BlockscaleBuffers{a, b, sa, sb, bias, c}, opt);
      const BlockscaleDiff diff = blockscale_diff(d.c, c.download<uint16_t>());
      Reports reports;
      reports.add(stats);
      fmt::print(" {:<12} {:<30} {:>7.3f} {:>7.2f} {:>12} {:>14}\n",
                 diff.truncated == 0 ? "exact" : fmt::format("{} differ", diff.truncated),
                 fmt::format("({} differ from RNE)", diff.rne), stats.seconds,
                 double(m) * double(n) * double(k) / stats.seconds / 1e9, reports.races_column(),
                 reports.hazards_column());
      reports.print_firsts(shown_reports);
    } catch (const std::exception& e) {
      fmt::print(" stops: {}\n", first_line(e.what()));
    }
  }
}

// M = 2 * tileM (two row tiles, the second partial for none here), N = 256,
// K = 512 (four k-blocks, two b_scale columns).
inline void run_blockscale_rows(const std::string& aiter_dir, const std::function<bool(const std::string&)>& wanted) {
  if (aiter_dir.empty()) return;
  fmt::print("\nfp8 blockscale: integers, power-of-two scales; elements differing from the formula truncated to bf16\n");
  for (const AiterBlockscale& ab : kAiterBlockscale) {
    const int64_t m = 2 * ab.tile_m, n = 256, k = 512;
    if (wanted(fmt::format("{} {}x{}x{}", blockscale_row_name(ab), m, n, k)))
      run_blockscale_case(aiter_dir, ab, m, n, k);
  }
}

}  // namespace foreign
