#pragma once
// AITER's attention backward (fmha_v3_bwd, bf16, d 128) on the emulator:
// launch facts, and bench_foreign's rows checking dQ, dK, dV (and the odo
// kernel's D) against a float64 reference (attention_backward_reference.hpp).
//
// github.com/ROCm/aiter @ e4048607a535ace3a2b51ded31b1c8c2d45c0879,
// hsa/gfx950/fmha_v3_bwd/ with fmha_bwd_{odo,dqdkdv,dq_convert,dq_shuffle}.csv,
// launched as csrc/cpp_itfs/mha_bwd.cu (fmha_v3_bwd) does for batch mode with
// the strides csrc/py_itfs_cu/asm_mha_bwd.cu takes from BSHD tensors (Hq = Hkv
// here, so dK/dV need no expansion). Causal there is mask "b:-1,0", bottom-right,
// so the launcher picks the causal_br kernels (same as top-left for Sq = Sk).
// For d 128, Sq = Sk, S % 256 == 0 the csv rows chosen are the psskddv ones
// (the only d 128 rows; pssk >= 0 and pddv >= 0 match). Three launches, all
// block 256, kernarg fields each in its own 16-byte slot (non-compact, gfx950):
// 1. odo (bwd_hd128_odo_bf16.co, _ZN5aiter23fmha_bwd_hd128_odo_bf16E, csv ts
//    128): D[b][h][i] = dO_i . O_i in fp32. Kernarg 256 bytes: pointers O 0,
//    dO 16, D 32; u32 Hs_o 48, BAs_o 64, Seqs_o 80, Hs_do 96, BAs_do 112,
//    Seqs_do 128, Hs_d 144 (4 S), BAs_d 160 (4 H S), Seqs_d 176 (4), seqlen_q
//    192, head_dim 208; pointers qseq 224, qseq_padded 240 (null). Grid
//    (ceil(S / 128), H, B), LDS 40 KiB fixed.
// 2. dQdKdV (bwd_hd128_bf16[_causal_br]_a{16,32}_psskddv.co, csv ts 256):
//    struct fmha_bwd_dqdkdv_args (csrc/include/mha_bwd.h), 704 bytes: pointers
//    dq 0 (the dQ accumulator), dk 16, dv 32, q 48, k 64, v 80, do 96, lse 112,
//    d 128; float scalar 144 (softmax scale), log2e 160; u32 seqlen_q 176, Ts
//    192 (256 * K row bytes), Hs_q 208, BAs_q 224, Seqs_q 240, ratio 256 (Hq /
//    Hkv), Hs_k 272, BAs_k 288, Seqs_k 304, Seqs_dk 320, seqlen_k 336,
//    head_dim_q 352, head_dim_v 368, nhead_q 384, Hs_v 400, BAs_v 416, Seqs_v
//    432, Hs_do 448, BAs_do 464, Seqs_do 480, Hs_dk 496, BAs_dk 512, Hs_dv 528,
//    BAs_dv 544, Seqs_dv 560, Hs_lsed 576 (4 S); pointers qseq 592, kseq 608,
//    qseq_padded 624, kseq_padded 640 (null); u32 max_seqlen_dq 656 (a32: S,
//    a16: S rounded up to 16); int mask_x 672, mask_y 688 (window masks only;
//    0). Strides in bytes (Seqs = row, Hs = head, BAs = batch). Grid
//    (ceil(S / 256), H, B), causal ((x + 1) / 2, H, B); LDS 160 KiB fixed.
//    dQ is accumulated over the key tiles in a zeroed workspace: a32 with
//    buffer_atomic_add_f32 into fp32 [B][H][S][D]; a16 with
//    buffer_atomic_pk_add_bf16 into bf16 [B][H][ceil16(S)][128] (the kernel's
//    own element order inside). Batch stride 0 when B = 1.
// 3. post: a32 bwd_hd128_dq_convert_bf16.co, a16 bwd_hd128_dq_shuffle.co (csv
//    ts 64): struct fmha_bwd_post_kernel_args, 192 bytes: pointers dq_acc 0,
//    dq 16; u32 Hs_dq_acc 32, BAs_dq_acc 48, Seqs_dq_acc 64 (accumulator bytes),
//    Hs_dq 80, BAs_dq 96, Seqs_dq 112, seqlen_q 128, head_dim 144; pointers
//    qseq 160, qseq_padded 176 (null). Grid (ceil(S / 64), H, B), LDS 40 KiB.
// LSE is the forward's natural-log LSE, fp32 [B][H][S].
//
// Data: Q, K, V, dO N(0, 1) samples rounded to bf16; O the float64 forward's O
// rounded to nearest even bf16 (what fmha_v3_fwd stores), LSE its LSE rounded
// to fp32. The reference uses exactly these values (D from the bf16 O).
// Checks (attention_row_error.hpp): dQ, dK, dV by their per-row relative
// error, a row being one token of one head: max |x - reference| / max
// |reference in the row|, floored at 2^-12 of the tensor's max |reference|
// (causal dQ of token 0 is exactly 0: one key, dS = P (dP - D) = 0); D by
// |D - reference| / sum over the row of |dO_k O_k|. Tolerances, from the
// formats (bf16 unit roundoff 2^-8, fp32 2^-24):
// - D: 1e-5. fp32 sums of 128 exact bf16 products, whose rounding error is at
//   most 128 x 2^-24 = 7.6e-6 of the sum of |products| (not of |D|, which
//   cancellation can make small).
// - dQ, dK, dV: a32 2^-6, a16 2^-5. P and dS enter the MFMAs as bf16 (2^-8
//   each) and dQ, dK, dV are stored as bf16 (2^-8 of each element): 3 x 2^-8
//   at worst. With a16 the dQ accumulator is bf16, so dQ is also rounded after
//   every atomic add of a partial sum (buffer_atomic_pk_add_bf16), hence the
//   doubled bound. a32 adds fp32 partials atomically: their order changes only
//   the last fp32 bits.
// A gradient zeroed for some tokens, or scaled by 0.8, fails (error 1, 0.2);
// NaN (never written): infinity.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "attention_backward_reference.hpp"
#include "attention_reference.hpp"
#include "attention_row_error.hpp"
#include "cdna4/reference.hpp"
#include "cdna4/runtime.hpp"
#include "foreign_reports.hpp"

namespace foreign {

struct AiterFmhaBwd {
  const char* file;  // under hsa/gfx950
  bool causal, atomic32;
};
inline const AiterFmhaBwd kAiterFmhaBwd[] = {
    {"fmha_v3_bwd/bwd_hd128_bf16_a16_psskddv.co", false, false},
    {"fmha_v3_bwd/bwd_hd128_bf16_a32_psskddv.co", false, true},
    {"fmha_v3_bwd/bwd_hd128_bf16_causal_br_a16_psskddv.co", true, false},
    {"fmha_v3_bwd/bwd_hd128_bf16_causal_br_a32_psskddv.co", true, true},
};
inline constexpr const char* kAiterBwdOdo = "fmha_v3_bwd/bwd_hd128_odo_bf16.co";
inline constexpr const char* kAiterBwdDqConvert = "fmha_v3_bwd/bwd_hd128_dq_convert_bf16.co";  // a32
inline constexpr const char* kAiterBwdDqShuffle = "fmha_v3_bwd/bwd_hd128_dq_shuffle.co";       // a16
inline constexpr uint32_t kAiterBwdTileOdo = 128, kAiterBwdTileKv = 256, kAiterBwdTilePost = 64;

struct AttentionBwdBuffers {
  const cdna4::Buffer &q, &k, &v, &o, &lse, &d_o;  // inputs
  const cdna4::Buffer &d, &dq_acc, &dq, &dk, &dv;  // outputs (dq_acc zeroed)
};

struct AiterBwdKernels {
  const cdna4::Kernel &odo, &dqdkdv, &post;
};

// Bytes of the zeroed dQ accumulator the launcher allocates.
inline size_t aiter_bwd_dq_acc_bytes(const AiterFmhaBwd& f, const AttentionShape& s) {
  const int64_t seq = f.atomic32 ? s.seqlen : (s.seqlen + 15) / 16 * 16, dim = f.atomic32 ? s.dim : 128;
  return size_t(s.batch * s.heads_q * seq * dim) * (f.atomic32 ? 4 : 2);
}

// The three launches in order; their stats.
inline std::array<cdna4::LaunchStats, 3> launch_aiter_fmha_bwd(cdna4::Device& dev, const AiterBwdKernels& kernels,
                                                               const AiterFmhaBwd& f, const AttentionShape& s,
                                                               const AttentionBwdBuffers& io,
                                                               cdna4::LaunchOptions opt) {
  const uint32_t S = uint32_t(s.seqlen), H = uint32_t(s.heads_q), D = uint32_t(s.dim);
  const uint32_t row = H * D * 2, head = D * 2, batch = S * row;  // BSHD bf16 strides in bytes
  const uint32_t lse_head = 4 * S, lse_batch = 4 * S * H;
  auto put_strides = [&](cdna4::KernargBlock& g, std::initializer_list<std::array<size_t, 3>> at) {
    for (const auto& [hs, bas, seqs] : at) g.put<uint32_t>(hs, head).put<uint32_t>(bas, batch).put<uint32_t>(seqs, row);
  };
  std::array<cdna4::LaunchStats, 3> stats;

  cdna4::KernargBlock odo(256);
  odo.pointer(0, io.o).pointer(16, io.d_o).pointer(32, io.d);
  put_strides(odo, {{48, 64, 80}, {96, 112, 128}});
  odo.put<uint32_t>(144, lse_head).put<uint32_t>(160, lse_batch).put<uint32_t>(176, 4);
  odo.put<uint32_t>(192, S).put<uint32_t>(208, D).put<uint64_t>(224, 0).put<uint64_t>(240, 0);
  stats[0] = dev.launch(kernels.odo, {(S + kAiterBwdTileOdo - 1) / kAiterBwdTileOdo, H, uint32_t(s.batch)}, {256},
                        odo, opt);

  const uint32_t acc_seq = f.atomic32 ? S : (S + 15) / 16 * 16, acc_dim = f.atomic32 ? D : 128;
  const uint32_t acc_bytes = f.atomic32 ? 4 : 2;
  cdna4::KernargBlock main(704);
  main.pointer(0, io.dq_acc).pointer(16, io.dk).pointer(32, io.dv).pointer(48, io.q).pointer(64, io.k);
  main.pointer(80, io.v).pointer(96, io.d_o).pointer(112, io.lse).pointer(128, io.d);
  main.put<float>(144, float(1.0 / std::sqrt(double(D)))).put<float>(160, float(M_LOG2E));
  main.put<uint32_t>(176, S).put<uint32_t>(192, kAiterBwdTileKv * row);
  put_strides(main, {{208, 224, 240}, {272, 288, 304}, {400, 416, 432}, {448, 464, 480}});
  main.put<uint32_t>(256, uint32_t(s.heads_q / s.heads_kv)).put<uint32_t>(320, row).put<uint32_t>(336, S);
  main.put<uint32_t>(352, D).put<uint32_t>(368, D).put<uint32_t>(384, H);
  main.put<uint32_t>(496, head).put<uint32_t>(512, batch).put<uint32_t>(528, head).put<uint32_t>(544, batch);
  main.put<uint32_t>(560, row).put<uint32_t>(576, lse_head);
  for (size_t at = 592; at <= 640; at += 16) main.put<uint64_t>(at, 0);
  main.put<uint32_t>(656, acc_seq).put<int32_t>(672, 0).put<int32_t>(688, 0);
  uint32_t tiles = (S + kAiterBwdTileKv - 1) / kAiterBwdTileKv;
  if (f.causal) tiles = (tiles + 1) / 2;
  stats[1] = dev.launch(kernels.dqdkdv, {tiles, H, uint32_t(s.batch)}, {256}, main, opt);

  cdna4::KernargBlock post(192);
  post.pointer(0, io.dq_acc).pointer(16, io.dq);
  post.put<uint32_t>(32, acc_seq * acc_dim * acc_bytes).put<uint32_t>(48, s.batch == 1 ? 0 : H * acc_seq * acc_dim * acc_bytes);
  post.put<uint32_t>(64, acc_dim * acc_bytes);
  put_strides(post, {{80, 96, 112}});
  post.put<uint32_t>(128, S).put<uint32_t>(144, D).put<uint64_t>(160, 0).put<uint64_t>(176, 0);
  stats[2] = dev.launch(kernels.post, {(S + kAiterBwdTilePost - 1) / kAiterBwdTilePost, H, uint32_t(s.batch)}, {256},
                        post, opt);
  return stats;
}

// ---- bench_foreign rows ----

struct AttentionBwdData {
  AttentionShape shape;
  std::vector<uint16_t> q, k, v, o, d_o;  // bf16 BSHD
  std::vector<float> lse;                 // [B][H][S]
  AttentionGradients reference;
};

inline AttentionBwdData make_attention_bwd_data(const AttentionShape& s) {
  AttentionBwdData d{s, {}, {}, {}, {}, {}, {}, {}};
  std::mt19937 rng(uint32_t(s.seqlen * 977 + s.batch * 31 + s.heads_q * 7 + (s.causal ? 1 : 0)));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const size_t n = size_t(s.q_elements());
  auto fill = [&](std::vector<uint16_t>& bits) {
    std::vector<double> values(n);
    bits.resize(n);
    for (size_t i = 0; i < n; ++i) values[i] = cdna4::bf16_to_float(bits[i] = cdna4::float_to_bf16(normal(rng)));
    return values;
  };
  const auto q = fill(d.q), k = fill(d.k), v = fill(d.v), d_o = fill(d.d_o);
  const double scale = 1.0 / std::sqrt(double(s.dim));
  const AttentionResult forward = reference_attention(s, q, k, v, scale);
  std::vector<double> o(n), lse(forward.lse.size());
  d.o.resize(n);
  for (size_t i = 0; i < n; ++i) o[i] = cdna4::bf16_to_float(d.o[i] = cdna4::float_to_bf16(float(forward.o[i])));
  d.lse.resize(lse.size());
  for (size_t i = 0; i < lse.size(); ++i) lse[i] = d.lse[i] = float(forward.lse[i]);
  d.reference = reference_attention_backward(s, q, k, v, o, d_o, lse, scale);
  return d;
}

inline constexpr double kAttentionBwdDTolerance = 1e-5;

// Per (batch, head, token), [B][H][S] as D: sum over the head's dim of |dO O|.
inline std::vector<double> attention_bwd_d_scale(const AttentionBwdData& d) {
  const AttentionShape& s = d.shape;
  std::vector<double> scale(d.lse.size());
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t t = 0; t < s.seqlen; ++t)
      for (int64_t h = 0; h < s.heads_q; ++h) {
        double sum = 0;
        for (int64_t x = 0, at = ((b * s.seqlen + t) * s.heads_q + h) * s.dim; x < s.dim; ++x)
          sum += std::fabs(double(cdna4::bf16_to_float(d.d_o[size_t(at + x)])) * cdna4::bf16_to_float(d.o[size_t(at + x)]));
        scale[size_t((b * s.heads_q + h) * s.seqlen + t)] = sum;
      }
  return scale;
}
inline constexpr double kAttentionBwdTolerance[2] = {1.0 / 32, 1.0 / 64};  // a16, a32

inline void run_attention_bwd_case(const std::string& dir, const AiterFmhaBwd& f, const AttentionShape& s,
                                   const std::string& name, const std::string& problem) {
  static std::map<std::string, cdna4::Kernel> kernels;
  auto kernel = [&](const std::string& file) -> const cdna4::Kernel& {
    if (!kernels.count(file)) kernels.emplace(file, cdna4::Kernel::from_file(dir + "/" + file));
    return kernels.at(file);
  };
  const AttentionBwdData d = make_attention_bwd_data(s);
  const double tolerance = kAttentionBwdTolerance[f.atomic32], d_tolerance = kAttentionBwdDTolerance;
  cdna4::Device dev = reporting_emulator();
  std::string shown_reports;
  rows_per_mode(name, problem, 22, [&](const cdna4::LaunchOptions& opt) {
    const AiterBwdKernels ks{kernel(kAiterBwdOdo), kernel(f.file),
                             kernel(f.atomic32 ? kAiterBwdDqConvert : kAiterBwdDqShuffle)};
    const size_t bytes = d.q.size() * 2, rows = d.lse.size() * 4;
    auto input = [&](const auto& host) { return uploaded(dev, host); };
    auto poisoned = [&](size_t n) { return input(std::vector<uint8_t>(n, 0xff)); };
    const cdna4::Buffer q = input(d.q), k = input(d.k), v = input(d.v), o = input(d.o), d_o = input(d.d_o);
    cdna4::Buffer lse = input(d.lse), dd = poisoned(rows), dq = poisoned(bytes), dk = poisoned(bytes),
                        dv = poisoned(bytes), dq_acc = dev.alloc(aiter_bwd_dq_acc_bytes(f, s));
    dq_acc.fill_zero();
    const auto stats = launch_aiter_fmha_bwd(dev, ks, f, s, {q, k, v, o, lse, d_o, dd, dq_acc, dq, dk, dv},
                                             opt);
    Reports reports;
    double seconds = 0;
    for (const cdna4::LaunchStats& st : stats) reports.add(st), seconds += st.seconds;
    const auto floats = [](const std::vector<float>& x) { return std::vector<double>(x.begin(), x.end()); };
    const size_t width = size_t(s.dim);
    const double e_d = scaled_error(floats(dd.download<float>()), d.reference.d, attention_bwd_d_scale(d));
    const double e_dq = row_relative_error(bf16_values(dq.download<uint16_t>()), d.reference.dq, width);
    const double e_dk = row_relative_error(bf16_values(dk.download<uint16_t>()), d.reference.dk, width);
    const double e_dv = row_relative_error(bf16_values(dv.download<uint16_t>()), d.reference.dv, width);
    const bool ok = e_d <= d_tolerance && std::max({e_dq, e_dk, e_dv}) <= tolerance;
    fmt::print(" D {:.1e} dQ {:.1e} dK {:.1e} dV {:.1e} {:<4} {:>7.3f} {:>12} {:>14}\n", e_d, e_dq, e_dk, e_dv,
               ok ? "ok" : "FAIL", seconds, reports.races_column(), reports.hazards_column());
    reports.print_firsts(shown_reports);
  });
}

// aiter_dir: AITER's hsa/gfx950 (empty: no rows).
inline void run_attention_bwd_rows(const std::string& aiter_dir,
                                   const std::function<bool(const std::string&)>& wanted) {
  if (aiter_dir.empty()) return;
  fmt::print("\nattention backward: vs float64 reference, D: max |D - ref| / sum |dO O| of its row; dQ, dK, dV: "
             "per-row relative error (max over token x head rows of max |x - ref| / max |ref in row|, floor 2^-12 "
             "of max |ref|); within tolerance (D 1e-5; dQ, dK, dV a32 2^-6, a16 2^-5); seconds of odo + dQdKdV + "
             "post\n");
  fmt::print("{:<44} {:>22} {:<10} {:<50} {:>7} {:>12} {:>14}\n", "kernel", "problem", "mode", "error", "emu s",
             "races", "hazards");
  for (const AiterFmhaBwd& f : kAiterFmhaBwd)
    for (const AttentionShape& s : {AttentionShape{1, 2, 2, 256, 128, f.causal},
                                    AttentionShape{2, 2, 2, 512, 128, f.causal}}) {
      const std::string file = f.file, name = "aiter " + file.substr(12, file.size() - 15);
      const std::string problem = fmt::format("b{}h{}/{}s{}d{}{}", s.batch, s.heads_q, s.heads_kv, s.seqlen, s.dim,
                                              s.causal ? " causal" : "");
      if (wanted(name + " " + problem)) run_attention_bwd_case(aiter_dir, f, s, name, problem);
    }
}

}  // namespace foreign
