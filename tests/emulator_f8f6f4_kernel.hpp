#pragma once
// One hand-written f8f6f4 MFMA on the emulator, with the operand layouts written
// out here from the CDNA 4 ISA guide (7.1.5, 7.2.1), independently of the
// emulator and its table:
//   lane l holds A[l % M][32*(l / M) + e] and B[32*(l / N) + e][l % N] as its
//   element e, w-bit elements (w = 8, 6, 4) packed little-endian across the
//   lane's w dwords (element e at bits [w*e, w*e + w));
//   scaled kinds: the byte op_sel / op_sel_hi pick of lane l's scale VGPR is the
//   E8M0 scale of A row l % M (B column l % N), k block l / M;
//   D: lane l, register r holds D[4*(64/N)*(r/4) + 4*(l/N) + r%4][l % N].
#include <cmath>
#include <string>
#include <vector>

#include "emulator_test_kernel.hpp"

namespace cdna4::f8f6f4test {

struct Format {
  const char* name;
  int code, bits, exponent_bits, mantissa_bits;
};
inline constexpr Format kFormats[] = {
    {"fp8", 0, 8, 4, 3}, {"bf8", 1, 8, 5, 2}, {"fp6", 2, 6, 2, 3}, {"bf6", 3, 6, 3, 2}, {"fp4", 4, 4, 2, 1}};

// The value of a finite code (OCP: bias 2^(exponent bits - 1) - 1, subnormals).
inline double value_of(const Format& f, uint32_t code) {
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  const int mantissa = int(code & ((1u << f.mantissa_bits) - 1));
  const int exponent = int(code >> f.mantissa_bits) & ((1 << f.exponent_bits) - 1);
  const double v = exponent ? std::ldexp(mantissa + (1 << f.mantissa_bits), exponent - bias - f.mantissa_bits)
                            : std::ldexp(mantissa, 1 - bias - f.mantissa_bits);
  return (code >> (f.bits - 1)) & 1 ? -v : v;
}

// fp8 S.1111.111 is NaN; bf8 exponent 31 is infinity or NaN; the rest are numbers.
inline bool finite_code(const Format& f, uint32_t code) {
  if (f.code == 0) return (code & 0x7f) != 0x7f;
  if (f.code == 1) return (code & 0x7c) != 0x7c;
  return true;
}

struct Kind {
  const char* mnemonic;
  int m, n, k;
  bool scaled;
  int wait_8bit, wait_small;  // wait states before a VALU reads D: passes + 4
};
inline constexpr Kind kKinds[] = {
    {"v_mfma_f32_16x16x128_f8f6f4", 16, 16, 128, false, 12, 8},
    {"v_mfma_f32_32x32x64_f8f6f4", 32, 32, 64, false, 20, 12},
    {"v_mfma_scale_f32_16x16x128_f8f6f4", 16, 16, 128, true, 12, 8},
    {"v_mfma_scale_f32_32x32x64_f8f6f4", 32, 32, 64, true, 20, 12},
};

inline int out_regs(const Kind& k) { return k.m * k.n / 64; }
inline int d_row(const Kind& k, int lane, int reg) { return 4 * (64 / k.n) * (reg / 4) + 4 * (lane / k.n) + reg % 4; }

// One MFMA's inputs: codes of A (M x K) and B (K x N), C bits (M x N), E8M0
// scales of A (M x K/32) and B (K/32 x N) and the bytes op_sel / op_sel_hi pick.
struct Problem {
  const Kind* kind;
  const Format* fa;
  const Format* fb;
  std::vector<uint32_t> a, b, c;
  std::vector<uint8_t> scale_a, scale_b;
  int byte_a = 0, byte_b = 0;
  bool agpr = false;

  Problem(const Kind& k, const Format& a_format, const Format& b_format)
      : kind(&k),
        fa(&a_format),
        fb(&b_format),
        a(k.m * k.k),
        b(k.k * k.n),
        c(k.m * k.n),
        scale_a(k.m * k.k / 32, 127),
        scale_b(k.k / 32 * k.n, 127) {}
};

inline std::string mfma_text(const Problem& p, const std::string& acc) {
  const Kind& k = *p.kind;
  std::string text =
      fmt::format("  {} {}, v[10:{}], v[18:{}], {}", k.mnemonic, acc, 9 + p.fa->bits, 17 + p.fb->bits, acc);
  if (k.scaled)
    text += fmt::format(", v42, v43 op_sel:[{},{},0] op_sel_hi:[{},{},0]", p.byte_a & 1, p.byte_b & 1, p.byte_a >> 1,
                        p.byte_b >> 1);
  return text + fmt::format(" cbsz:{} blgp:{}\n", p.fa->code, p.fb->code);
}

// Kernel arguments: A, B, C, D, A scales, B scales, each [register][lane] dwords.
inline std::string kernel_body(const Problem& p) {
  const Kind& k = *p.kind;
  std::string body =
      "  s_load_dwordx8 s[4:11], s[0:1], 0\n  s_load_dwordx4 s[12:15], s[0:1], 32\n  v_lshlrev_b32 v3, 2, v0\n"
      "  s_waitcnt lgkmcnt(0)\n";
  for (int r = 0; r < p.fa->bits; ++r)
    body += fmt::format("  global_load_dword v{}, v3, s[4:5] offset:{}\n", 10 + r, 256 * r);
  for (int r = 0; r < p.fb->bits; ++r)
    body += fmt::format("  global_load_dword v{}, v3, s[6:7] offset:{}\n", 18 + r, 256 * r);
  for (int r = 0; r < out_regs(k); ++r)
    body += fmt::format("  global_load_dword v{}, v3, s[8:9] offset:{}\n", 26 + r, 256 * r);
  body += "  global_load_dword v42, v3, s[12:13]\n  global_load_dword v43, v3, s[14:15]\n  s_waitcnt vmcnt(0)\n";
  const int last = out_regs(k) - 1;
  const std::string acc = p.agpr ? fmt::format("a[0:{}]", last) : fmt::format("v[26:{}]", 26 + last);
  if (p.agpr)
    for (int r = 0; r <= last; ++r) body += fmt::format("  v_accvgpr_write_b32 a{}, v{}\n", r, 26 + r);
  body += "  s_nop 2\n" + mfma_text(p, acc) + "  s_nop 7\n  s_nop 7\n  s_nop 7\n";
  for (int r = 0; r <= last; ++r) {
    if (p.agpr) body += fmt::format("  v_accvgpr_read_b32 v{}, a{}\n", 26 + r, r);
    body += fmt::format("  global_store_dword v3, v{}, s[10:11] offset:{}\n", 26 + r, 256 * r);
  }
  return body + "  s_waitcnt vmcnt(0)\n  s_endpgm\n";
}

// Lane l's w-bit elements e = 0..31 as a bit string over `regs` dwords.
template <class CodeOf>
void put_lane(std::vector<uint32_t>& image, int lane, int bits, CodeOf code_of) {
  for (int e = 0; e < 32; ++e)
    for (int b = 0; b < bits; ++b)
      if ((code_of(e) >> b) & 1) image[(bits * e + b) / 32 * 64 + lane] |= 1u << ((bits * e + b) % 32);
}

// The scale VGPR image: lane l's picked byte is `scale(l)`, the other bytes differ from it.
template <class ScaleOf>
std::vector<uint32_t> scale_image(int byte, ScaleOf scale) {
  std::vector<uint32_t> image(64, 0);
  for (int l = 0; l < 64; ++l)
    for (int b = 0; b < 4; ++b) image[l] |= uint32_t(uint8_t(scale(l) + 2 * (b - byte))) << (8 * b);
  return image;
}

// Runs the MFMA; returns D (M x N bits) and the run's statistics.
inline std::vector<uint32_t> run_mfma(const Problem& p, emu::RunStats* stats_out = nullptr) {
  const Kind& k = *p.kind;
  emutest::KernelShape shape;
  shape.vgprs = 64 + 16;
  shape.accum_offset = 64;
  const emutest::TestKernel kernel = emutest::TestKernel::build(kernel_body(p), shape);
  std::vector<uint32_t> a(8 * 64, 0), b(8 * 64, 0), c(16 * 64), d(16 * 64, 0);
  for (int l = 0; l < 64; ++l) {
    put_lane(a, l, p.fa->bits, [&](int e) { return p.a[(l % k.m) * k.k + 32 * (l / k.m) + e]; });
    put_lane(b, l, p.fb->bits, [&](int e) { return p.b[(32 * (l / k.n) + e) * k.n + l % k.n]; });
    for (int r = 0; r < out_regs(k); ++r) c[r * 64 + l] = p.c[d_row(k, l, r) * k.n + l % k.n];
  }
  std::vector<uint32_t> sa = scale_image(p.byte_a, [&](int l) { return p.scale_a[(l % k.m) * (k.k / 32) + l / k.m]; });
  std::vector<uint32_t> sb = scale_image(p.byte_b, [&](int l) { return p.scale_b[(l / k.n) * k.n + l % k.n]; });
  emutest::Args args;
  for (auto* buffer : {&a, &b, &c, &d, &sa, &sb}) args.add(*buffer);
  const emu::RunStats stats = emutest::run(kernel, args.dispatch(), emutest::randomized(5));
  if (stats_out) *stats_out = stats;
  std::vector<uint32_t> out(k.m * k.n);
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < out_regs(k); ++r) out[d_row(k, l, r) * k.n + l % k.n] = d[r * 64 + l];
  return out;
}

// D[i][j] under the policy when every scaled element is an fp32 value: C, then
// one fma per k in order (the product of two fp32 values is exact inside fma).
inline uint32_t expected_d(const Problem& p, int i, int j) {
  const Kind& k = *p.kind;
  float acc = emutest::f32(p.c[i * k.n + j]);
  for (int x = 0; x < k.k; ++x) {
    const double sa = k.scaled ? std::ldexp(1.0, p.scale_a[i * (k.k / 32) + x / 32] - 127) : 1.0;
    const double sb = k.scaled ? std::ldexp(1.0, p.scale_b[(x / 32) * k.n + j] - 127) : 1.0;
    acc = std::fma(float(value_of(*p.fa, p.a[i * k.k + x]) * sa), float(value_of(*p.fb, p.b[x * k.n + j]) * sb), acc);
  }
  return emutest::bits(acc);
}

}  // namespace cdna4::f8f6f4test
