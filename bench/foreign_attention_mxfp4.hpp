#pragma once
// AITER's mxfp4 attention forward (fmha_v4_fwd, d 128, non-causal) on the
// emulator: launch facts, and bench_foreign's rows checking O against a float64
// reference (attention_reference.hpp) computed from the decoded values.
//
// github.com/ROCm/aiter @ e4048607a535ace3a2b51ded31b1c8c2d45c0879,
// hsa/gfx950/fmha_v4_fwd/fwd_hd128_mxfp4.co (_ZN5aiter28fmha_fwd_hd128_mxfp4_gfx950E;
// fmha_v4_fwd.csv: Q, K format 9 = fp4 E2M1 with scale mode 5 = E8M0 per 1x32,
// V format 3 = fp8 E4M3 with scale mode 4 = fp32 per channel, O bf16, ts_qo
// 256), launched as csrc/py_itfs_cu/asm_mha_v4_fwd.cu (fmha_v4_fwd) does, with
// the data aiter/ops/mha_v4.py (mha_v4) and csrc/kernels/mha_v4_quant.cu build:
// - Q: [B][S][H][64] bytes, two fp4 codes per byte (element 2i in the low
//   nibble of byte i), values already multiplied by softmax_scale * log2(e)
//   (mha_v4_q_multiplier) before quantizing; q_descale [B][S][H][4] E8M0 bytes,
//   one per 32 elements (2^(e - 127); the quantizer takes the smallest power of
//   two >= amax / 6).
// - K: the "coalesced" tile layout: per (batch, head) ceil(S / 128) tiles of
//   8192 bytes; element x of token t at tile t / 128, byte (x / 32) * 2048 +
//   (t % 128) * 16 + (x % 32) / 2, nibble x % 2 (strides Seqs 64, Hs tiles *
//   8192, Bs H * tiles * 8192 as the launcher checks); k_descale [B][S][H][4].
// - V: fp8 E4M3 BSHD; v_descale fp32 [B][H][128], one per channel.
// (The quantizers also apply a Walsh-Hadamard rotation to Q and K, which
// leaves Q K^T unchanged; the codes here are drawn directly.)
// Kernarg 656 bytes, fmha_fwd_v3_args' layout (foreign_kernels.hpp, AiterFmha)
// with byte strides of these packed tensors: O 0, Q 16, K 32, V 48, LSE 64
// (null), scalar 80 (softmax_scale, as the launcher passes it), seq_len 96,
// Seqs 112 (64 H), Ts 128 (256 Seqs), Hs 144 (64), Bs 160, gqa 176 (1),
// k_Seqs 192, k_Hs 208, k_Bs 224, opt 240 (5), lse 256 (0), kv_seq_len 272,
// qk_head_dim 288, v_head_dim 304 (128), q_head_num 320, v_Seqs 336 (128 H),
// v_Hs 352 (128), v_Bs 368, o_Seqs 384, o_Hs 400, o_Bs 416 (bf16 bytes),
// q/k/v_descale pointers 512, 528, 544, descale strides q_Bs 560 (4 S H),
// q_Hs 576 (4), k_Bs 592, k_Hs 608, v_Bs 624 (512 H), v_Hs 640 (512). Grid
// (ceil(S / 256), H, B), block 512, LDS 65 KiB fixed. Hq = Hkv, no LSE.
// The kernel computes the descale addresses itself (it reads none of the
// descale strides): q/k_descale + ((b S + t) H + h) 4. Odd waves read
// k_descale with buffer_load_dword ... lds at byte offset 1 of each 4-byte row,
// so the last lane reads up to 3 bytes past the tensor's end (inside the
// descriptor's range, S * 4 H bytes from the head's base); a caching allocator's
// granularity covers that, so the scale buffers get kAiterMxfp4ScaleSlack zero
// bytes after them here.
//
// Reference: scores s_ij = q~_i . k~_j of the decoded values (codes times
// scales, Q including the multiplier), P = softmax in base 2 (the reference's
// natural softmax with scale ln 2), O = P V~ with V~ = code times v_descale.
// Check (attention_row_error.hpp): O's per-row relative error (one token of one
// head: max |O - reference| / max |reference in the row|, floored at 2^-12 of
// the tensor's max), tolerance 2^-1. The kernel never evaluates exp: it forms
// P's fp8 E4M3 codes directly as integers, v_cvt_pk_u8_f32 of the score in
// eighths of an octave minus the running max plus 55.536, so each weight is
// the code grid's piecewise-linear 2^x (up to 6% off) rounded to a whole code
// (2^(1/16): up to 4.4%), about 2^-3.5 per weight, and the row sums come from
// the same codes (v_smfmac_f32_16x16x128_fp8_fp8 against fp8 ones). O is a
// weighted mean of V with cancellation, so relative to a row's largest O these
// per-weight errors add up: a float64 model of that P formation (one max per
// row) is 0.11 (b1 s256) and 0.29 (b2 s512) off the exact softmax here. The fp4
// Q, K and fp8 V codes are exact in the reference. This tolerance still fails
// unwritten (NaN), zeroed or misplaced rows, but not a 20% error of a row's
// scale; that needs a reference forming P as the kernel does.
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
#include "foreign_reports.hpp"

namespace foreign {

inline constexpr const char* kAiterMxfp4Fwd = "fmha_v4_fwd/fwd_hd128_mxfp4.co";
inline constexpr int64_t kAiterMxfp4TileQ = 256, kAiterMxfp4TileK = 128, kAiterMxfp4KTileBytes = 8192;
inline constexpr size_t kAiterMxfp4ScaleSlack = 256;
inline constexpr double kAiterMxfp4OTolerance = 1.0 / 2;

struct Mxfp4Buffers {
  const cdna4::Buffer &q, &k, &v, &o, &q_scale, &k_scale, &v_scale;
};

inline cdna4::LaunchStats launch_aiter_mxfp4_fwd(cdna4::Device& dev, const cdna4::Kernel& kernel,
                                                 const AttentionShape& s, const Mxfp4Buffers& io,
                                                 cdna4::LaunchOptions opt) {
  const uint32_t S = uint32_t(s.seqlen), H = uint32_t(s.heads_q), D = uint32_t(s.dim);
  const uint32_t tiles = uint32_t((s.seqlen + kAiterMxfp4TileK - 1) / kAiterMxfp4TileK);
  const uint32_t q_row = H * D / 2, k_head = tiles * uint32_t(kAiterMxfp4KTileBytes), v_row = H * D, o_row = H * D * 2;
  cdna4::KernargBlock g(656);
  g.pointer(0, io.o).pointer(16, io.q).pointer(32, io.k).pointer(48, io.v).put<uint64_t>(64, 0);
  g.put<float>(80, float(1.0 / std::sqrt(double(D)))).put<uint32_t>(96, S);
  g.put<uint32_t>(112, q_row).put<uint32_t>(128, uint32_t(kAiterMxfp4TileQ) * q_row).put<uint32_t>(144, D / 2);
  g.put<uint32_t>(160, S * q_row).put<uint32_t>(176, 1);
  g.put<uint32_t>(192, D / 2).put<uint32_t>(208, k_head).put<uint32_t>(224, H * k_head);
  g.put<uint32_t>(240, 5).put<uint32_t>(256, 0).put<uint32_t>(272, S).put<uint32_t>(288, D).put<uint32_t>(304, D);
  g.put<uint32_t>(320, H).put<uint32_t>(336, v_row).put<uint32_t>(352, D).put<uint32_t>(368, S * v_row);
  g.put<uint32_t>(384, o_row).put<uint32_t>(400, D * 2).put<uint32_t>(416, S * o_row);
  for (size_t at = 432; at <= 496; at += 16) g.put<uint64_t>(at, 0);
  g.pointer(512, io.q_scale).pointer(528, io.k_scale).pointer(544, io.v_scale);
  g.put<uint32_t>(560, 4 * S * H).put<uint32_t>(576, 4).put<uint32_t>(592, 4 * S * H).put<uint32_t>(608, 4);
  g.put<uint32_t>(624, 4 * D * H).put<uint32_t>(640, 4 * D);
  const uint32_t q_tiles = uint32_t((s.seqlen + kAiterMxfp4TileQ - 1) / kAiterMxfp4TileQ);
  return dev.launch(kernel, {q_tiles, H, uint32_t(s.batch)}, {512}, g, opt);
}

// ---- data and rows ----

struct Mxfp4Data {
  AttentionShape shape;
  std::vector<uint8_t> q, k, v, q_scale, k_scale;
  std::vector<float> v_scale;
  AttentionResult reference;
};

// One row of 128 values as fp4 codes with one E8M0 scale per 32 (the smallest
// power of two >= amax / 6, as mha_v4_quant.cu picks it); the decoded values.
inline std::vector<double> quantize_mxfp4_row(const float* x, uint8_t* codes, uint8_t* scales) {
  std::vector<double> decoded(128);
  for (int blk = 0; blk < 4; ++blk) {
    float amax = 0;
    for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[blk * 32 + i]));
    uint32_t bits;
    const float ratio = amax / 6.0f;
    std::memcpy(&bits, &ratio, 4);
    const uint32_t exponent = ((bits + 0x007FFFFFu) & 0x7F800000u) >> 23;
    scales[blk] = uint8_t(exponent);
    const double scale = std::ldexp(1.0, int(exponent) - 127);
    for (int i = 0; i < 32; ++i) {
      const int e = blk * 32 + i;
      codes[e] = uint8_t(cdna4::encode_element(cdna4::DataType::fp4, float(x[e] / scale)));
      decoded[size_t(e)] = double(cdna4::decode_element(cdna4::DataType::fp4, codes[e])) * scale;
    }
  }
  return decoded;
}

inline Mxfp4Data make_mxfp4_data(const AttentionShape& s) {
  const int64_t B = s.batch, S = s.seqlen, H = s.heads_q, D = s.dim, tiles = (S + 127) / 128;
  Mxfp4Data d{s, std::vector<uint8_t>(size_t(B * S * H * D / 2)), std::vector<uint8_t>(size_t(B * H * tiles * 8192)),
              std::vector<uint8_t>(size_t(B * S * H * D)), std::vector<uint8_t>(size_t(B * S * H * 4)),
              std::vector<uint8_t>(size_t(B * S * H * 4)), std::vector<float>(size_t(B * H * D)), {}};
  std::mt19937 rng(uint32_t(S * 71 + B * 13 + H));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const float multiplier = float(M_LOG2E / std::sqrt(double(D)));
  std::vector<double> q(size_t(s.q_elements())), k(q.size()), v(q.size());
  for (size_t c = 0; c < d.v_scale.size(); ++c) d.v_scale[c] = float(4 + c % 13) / 448.0f;  // uneven per channel, |V| < 4 stays below the E4M3 max
  std::vector<float> x(static_cast<size_t>(D));
  std::vector<uint8_t> codes(static_cast<size_t>(D));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < S; ++t)
      for (int64_t h = 0; h < H; ++h) {
        const size_t row = size_t((b * S + t) * H + h);
        for (float& e : x) e = normal(rng) * multiplier;
        std::vector<double> dq = quantize_mxfp4_row(x.data(), codes.data(), &d.q_scale[row * 4]);
        for (int64_t e = 0; e < D; ++e) {
          d.q[row * 64 + size_t(e / 2)] |= uint8_t(codes[size_t(e)] << (4 * (e % 2)));
          q[row * size_t(D) + size_t(e)] = dq[size_t(e)];
        }
        for (float& e : x) e = normal(rng);
        std::vector<double> dk = quantize_mxfp4_row(x.data(), codes.data(), &d.k_scale[row * 4]);
        const size_t tile = size_t(((b * H + h) * tiles + t / 128) * 8192);
        for (int64_t e = 0; e < D; ++e) {
          d.k[tile + size_t((e / 32) * 2048 + (t % 128) * 16 + (e % 32) / 2)] |= uint8_t(codes[size_t(e)] << (4 * (e % 2)));
          k[row * size_t(D) + size_t(e)] = dk[size_t(e)];
        }
        for (int64_t e = 0; e < D; ++e) {
          const float descale = d.v_scale[size_t((b * H + h) * D + e)];
          const uint32_t code = cdna4::encode_element(cdna4::DataType::fp8, normal(rng) / descale);
          d.v[row * size_t(D) + size_t(e)] = uint8_t(code);
          v[row * size_t(D) + size_t(e)] = double(cdna4::decode_element(cdna4::DataType::fp8, code)) * descale;
        }
      }
  d.reference = reference_attention(s, q, k, v, std::log(2.0));
  return d;
}

inline void run_mxfp4_case(const std::string& file, const AttentionShape& s, const std::string& problem) {
  const Mxfp4Data d = make_mxfp4_data(s);
  cdna4::Device dev = reporting_emulator();
  std::string shown_reports;
  rows_per_mode("aiter fwd_hd128_mxfp4", problem, 22, [&](const cdna4::LaunchOptions& opt) {
    static const cdna4::Kernel kernel = cdna4::Kernel::from_file(file);
    auto input = [&](const auto& host) { return uploaded(dev, host); };
    // Scales with kAiterMxfp4ScaleSlack zero bytes after them (see the file comment).
    auto with_slack = [](std::vector<uint8_t> bytes) {
      bytes.resize(bytes.size() + kAiterMxfp4ScaleSlack);
      return bytes;
    };
    const cdna4::Buffer q = input(d.q), k = input(d.k), v = input(d.v), qs = input(with_slack(d.q_scale)),
                        ks = input(with_slack(d.k_scale)), vs = input(d.v_scale);
    cdna4::Buffer o = input(std::vector<uint8_t>(size_t(s.q_elements()) * 2, 0xff));  // NaN: unwritten shows
    const cdna4::LaunchStats stats = launch_aiter_mxfp4_fwd(dev, kernel, s, {q, k, v, o, qs, ks, vs},
                                                            opt);
    const double err = row_relative_error(bf16_values(o.download<uint16_t>()), d.reference.o, size_t(s.dim));
    Reports reports;
    reports.add(stats);
    fmt::print(" O {:.1e} {:<4} {:>7.3f} {:>12} {:>14}\n", err, err <= kAiterMxfp4OTolerance ? "ok" : "FAIL", stats.seconds,
               reports.races_column(), reports.hazards_column());
    reports.print_firsts(shown_reports);
  });
}

// aiter_dir: AITER's hsa/gfx950 (empty: no rows).
inline void run_mxfp4_rows(const std::string& aiter_dir, const std::function<bool(const std::string&)>& wanted) {
  if (aiter_dir.empty()) return;
  fmt::print("\nmxfp4 attention forward: O per-row relative error vs float64 reference of the decoded values "
             "(max over token x head rows of max |O - ref| / max |ref in row|, floor 2^-12 of max |ref|; "
             "tolerance 2^-1: P is an approximate exp2 on the fp8 code grid)\n");
  fmt::print("{:<44} {:>22} {:<10} {:<14} {:>7} {:>12} {:>14}\n", "kernel", "problem", "mode", "error", "emu s",
             "races", "hazards");
  for (const AttentionShape& s : {AttentionShape{1, 2, 2, 256, 128, false}, AttentionShape{2, 2, 2, 512, 128, false}}) {
    const std::string problem = fmt::format("b{}h{}/{}s{}d{}", s.batch, s.heads_q, s.heads_kv, s.seqlen, s.dim);
    if (!wanted("aiter fwd_hd128_mxfp4 " + problem)) continue;
    run_mxfp4_case(aiter_dir + "/" + kAiterMxfp4Fwd, s, problem);
  }
}

}  // namespace foreign
