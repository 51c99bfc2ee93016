#pragma once
// bench_foreign's attention rows: AITER's fmha_v3_fwd (bf16 and fp8, d 128,
// causal and not) and HipKittens' GQA forward (d 128 and 64, causal and not),
// each against a float64 reference (attention_reference.hpp) computed from the
// exact values the kernel reads. Q, K, V are N(0, 1) samples rounded to bf16;
// for fp8 they are the OCP e4m3 encodings of 4 x N(0, 1) with per-tensor
// descales 1/4 (Q, K) and 1/2 (V), so the kernel sees 4 x the values in fp8 and
// the reference the decoded values times the descales.
//
// Checks (attention_row_error.hpp): O by its per-row relative error (one token
// of one head: max |O - reference| / max |reference in the row|, floored at
// 2^-12 of the tensor's max), LSE by max |LSE - reference| (a log: an absolute
// error is a relative error of the row sum). Tolerances, from the formats
// (unit roundoff: bf16 2^-8 round-to-nearest, 2^-7 truncated; e4m3 2^-4):
// - bf16 kernels: O 2^-6. O is stored in bf16 (rounded by AITER, truncated by
//   HipKittens: 2^-7) and P enters the PV MFMA as bf16 (2^-8 per weight, which
//   also moves the row's scale if the row sum is taken before rounding): about
//   3 x 2^-8 at worst. LSE 1e-2: HipKittens rounds Q times the scale to bf16
//   before QK^T (2^-8 relative on scores of magnitude < 5).
// - fp8 kernels: O 2^-3, one e4m3 step at the top of a binade: P enters the PV
//   MFMA in e4m3 (2^-4 per weight and on the row's scale); Q, K, V are exact
//   e4m3 codes in the reference. LSE 1e-2.
// A normalisation error (O = 0.8 x reference is 0.2) or a row never written
// (NaN: infinity) fails both.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "attention_reference.hpp"
#include "attention_row_error.hpp"
#include "cdna4/reference.hpp"
#include "cdna4/runtime.hpp"
#include "foreign_kernels.hpp"
#include "foreign_reports.hpp"

namespace foreign {

struct AttentionData {
  AttentionShape shape;
  bool fp8;
  std::vector<uint8_t> q, k, v;  // raw bf16 or e4m3 bytes, BSHD
  float descale[3] = {1, 1, 1};  // Q, K, V (fp8)
  AttentionResult reference;
};

inline AttentionData make_attention_data(const AttentionShape& s, bool fp8, double scale) {
  AttentionData d{s, fp8, {}, {}, {}, {}, {}};
  if (fp8) d.descale[0] = d.descale[1] = 0.25f, d.descale[2] = 0.5f;
  std::mt19937 rng(uint32_t(s.seqlen * 131 + s.dim * 7 + s.heads_q + (s.causal ? 1 : 0) + (fp8 ? 2 : 0)));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto fill = [&](std::vector<uint8_t>& bytes, int64_t count, float descale) {
    std::vector<double> values(static_cast<size_t>(count));
    bytes.resize(size_t(count) * (fp8 ? 1 : 2));
    for (int64_t i = 0; i < count; ++i) {
      if (fp8) {
        const uint32_t bits = cdna4::encode_element(cdna4::DataType::fp8, normal(rng) / descale);
        bytes[size_t(i)] = uint8_t(bits);
        values[size_t(i)] = double(cdna4::decode_element(cdna4::DataType::fp8, bits)) * descale;
      } else {
        const uint16_t bits = cdna4::float_to_bf16(normal(rng));
        std::memcpy(&bytes[size_t(2 * i)], &bits, 2);
        values[size_t(i)] = cdna4::bf16_to_float(bits);
      }
    }
    return values;
  };
  const auto q = fill(d.q, s.q_elements(), d.descale[0]);
  const auto k = fill(d.k, s.kv_elements(), d.descale[1]);
  const auto v = fill(d.v, s.kv_elements(), d.descale[2]);
  d.reference = reference_attention(s, q, k, v, scale);
  return d;
}

struct AttentionCase {
  std::string name;
  AttentionShape shape;
  bool fp8;
  std::function<cdna4::LaunchStats(cdna4::Device&, const AttentionData&, const AttentionBuffers&,
                                   const cdna4::Buffer& descale, cdna4::LaunchOptions)>
      launch;
  std::string problem() const {
    return fmt::format("b{}h{}/{}s{}d{}{}", shape.batch, shape.heads_q, shape.heads_kv, shape.seqlen, shape.dim,
                       shape.causal ? " causal" : "");
  }
};

inline std::vector<AttentionCase> attention_cases(const std::string& hk_dir, const std::string& aiter_dir) {
  std::vector<AttentionCase> cases;
  auto kernel_of = [](const std::string& file) {
    static std::map<std::string, cdna4::Kernel> kernels;
    if (!kernels.count(file)) kernels.emplace(file, cdna4::Kernel::from_file(file));
    return kernels.at(file);
  };
  if (!aiter_dir.empty())
    for (const AiterFmha& f : kAiterFmha)
      for (const AttentionShape& s : {AttentionShape{1, 2, 1, 256, 128, f.causal},
                                      AttentionShape{2, 2, 2, 512, 128, f.causal}}) {
        const std::string file = aiter_dir + "/" + f.file;
        const std::string stem = std::string(f.file).substr(12, std::string(f.file).size() - 15);  // fwd_hd128_...
        cases.push_back({"aiter " + stem, s, f.fp8,
                         [file, f, kernel_of](cdna4::Device& dev, const AttentionData& d, const AttentionBuffers& io,
                                              const cdna4::Buffer& descale, cdna4::LaunchOptions opt) {
                           return launch_aiter_fmha(dev, kernel_of(file), f, d.shape, io, descale, opt);
                         }});
      }
  if (!hk_dir.empty())
    for (bool causal : {false, true})
      for (int64_t dim : {128, 64}) {
        const AttentionShape s{kHipKittensAttentionBatch, kHipKittensAttentionHeads, kHipKittensAttentionKvHeads,
                               kHipKittensAttentionSeqlen, dim, causal};
        const std::string file = hipkittens_attention_file(hk_dir, causal, dim);
        cases.push_back({fmt::format("hipkittens attn {} d{}", causal ? "gqa_causal" : "gqa", dim), s, false,
                         [file, kernel_of](cdna4::Device& dev, const AttentionData& d, const AttentionBuffers& io,
                                           const cdna4::Buffer&, cdna4::LaunchOptions opt) {
                           return launch_hipkittens_attention(dev, kernel_of(file), d.shape, io, opt);
                         }});
      }
  return cases;
}

inline constexpr double kAttentionOTolerance[2] = {1.0 / 64, 1.0 / 8};  // bf16, fp8
inline constexpr double kAttentionLseTolerance = 1e-2;

// O: per-row relative error of BSHD bf16 O; LSE: largest |x - reference| of fp32
// LSE (NaN or never written: infinity).
struct AttentionError {
  double o = 0, lse = 0;
};

inline AttentionError attention_error(const AttentionData& d, const std::vector<uint16_t>& o,
                                      const std::vector<float>& lse) {
  AttentionError e;
  e.o = row_relative_error(bf16_values(o), d.reference.o, size_t(d.shape.dim));
  for (size_t i = 0; i < lse.size(); ++i) {
    const double diff = std::fabs(lse[i] - d.reference.lse[i]);
    e.lse = std::isnan(diff) ? INFINITY : std::max(e.lse, diff);
  }
  return e;
}

inline void run_attention_case(const AttentionCase& c) {
  const double scale = 1.0 / std::sqrt(double(c.shape.dim));
  const AttentionData d = make_attention_data(c.shape, c.fp8, scale);
  const double o_tolerance = kAttentionOTolerance[c.fp8], lse_tolerance = kAttentionLseTolerance;
  cdna4::Device dev = reporting_emulator();
  std::string shown_reports;
  rows_per_mode(c.name, c.problem(), 22, [&](const cdna4::LaunchOptions& opt) {
    cdna4::Buffer q = uploaded(dev, d.q), k = uploaded(dev, d.k), v = uploaded(dev, d.v);
    // NaN: unwritten shows
    cdna4::Buffer o = uploaded(dev, std::vector<uint8_t>(size_t(c.shape.q_elements()) * 2, 0xff));
    cdna4::Buffer lse = uploaded(dev, std::vector<uint8_t>(size_t(c.shape.rows()) * 4, 0xff));
    cdna4::Buffer descale = uploaded(dev, std::vector<float>{d.descale[0], d.descale[1], d.descale[2], 0.0f});
    const cdna4::LaunchStats stats = c.launch(dev, d, AttentionBuffers{q, k, v, o, lse}, descale, opt);
    const AttentionError e = attention_error(d, o.download<uint16_t>(), lse.download<float>());
    Reports reports;
    reports.add(stats);
    const bool ok = e.o <= o_tolerance && e.lse <= lse_tolerance;
    fmt::print(" O {:.1e} LSE {:.1e} {:<4} {:>7.3f} {:>12} {:>14}\n", e.o, e.lse, ok ? "ok" : "FAIL", stats.seconds,
               reports.races_column(), reports.hazards_column());
    reports.print_firsts(shown_reports);
  });
}

inline void run_attention_rows(const std::string& hk_dir, const std::string& aiter_dir,
                               const std::function<bool(const std::string&)>& wanted) {
  const std::vector<AttentionCase> cases = attention_cases(hk_dir, aiter_dir);
  if (cases.empty()) return;
  fmt::print("\nattention: O per-row relative error vs float64 reference (max over token x head rows of "
             "max |O - ref| / max |ref in row|, floor 2^-12 of max |ref|), max |LSE - reference|, within "
             "tolerance (O: bf16 2^-6, fp8 2^-3; LSE 1e-2)\n");
  fmt::print("{:<44} {:>22} {:<10} {:<30} {:>7} {:>12} {:>14}\n", "kernel", "problem", "mode", "error", "emu s",
             "races", "hazards");
  for (const AttentionCase& c : cases)
    if (wanted(c.name + " " + c.problem())) run_attention_case(c);
}

}  // namespace foreign
