#pragma once
// gfx950's MFMA kinds and the element types they take: the one table the code
// generator, the emulator and the timing model read (header-only, below all of
// them). Lane layouts follow from a row (docs/emulator.md):
//   A: lane l, element e of the lane's A registers holds A[l % M][kpl*(l / M) + e]
//   B: likewise B[kpl*(l / N) + e][l % N]     (kpl = K / (64 / M) elements per lane)
//   C/D: lane l, register r holds D[4*(64/N)*(r/4) + 4*(l/N) + r%4][l % N]
// Sparse (smfmac) kinds: B as above (gfx950's 8-bit doubled-K kinds: in two
// halves, sparse_b_k); A is 4:2 structured-sparse, lane l holds
// the kpl/2 kept values of A[l % M][kpl*(l / M) .. +kpl-1], two per group of 4
// k; the index VGPR says where (sparse_index_bits).
// Element e of width w is bits [w*e, w*e + w) of the lane's registers read as one
// little-endian bit string (an fp6 element may straddle two dwords). Scaled
// f8f6f4 kinds (kpl = 32 = one scale block): lane l's scale byte scales
// A[l % M][32*(l / M) .. +31] and B[32*(l / N) .. +31][l % N].
#include <cstdint>
#include <optional>
#include <string_view>

namespace cdna4::gfx950 {

enum class Element : uint8_t { bf16, f16, fp8, bf8, fp6, bf6, fp4, i8 };

// Which encodings are not finite numbers.
enum class Specials : uint8_t {
  ieee,          // exponent all ones: infinity (mantissa 0) or NaN
  nan_all_ones,  // no infinities; S.1111.111 alone is NaN (OCP E4M3)
  none,          // every encoding is a finite number (OCP E2M3, E3M2, E2M1)
  integer,
};

struct ElementInfo {
  Element element;
  std::string_view name;  // as the schedule format spells it
  uint8_t bits;
  uint8_t exponent_bits, mantissa_bits;  // exponent bias 2^(exponent_bits - 1) - 1
  int8_t f8f6f4_format;  // cbsz / blgp value of the f8f6f4 MFMAs, -1 if they do not take it
  Specials specials;
};

// OCP formats as gfx950 implements them (fp8 = E4M3: bias 7, max 448; bf8 =
// E5M2: bias 15, IEEE infinities and NaNs; fp6 = E2M3: bias 1, max 7.5; bf6 =
// E3M2: bias 3, max 28; fp4 = E2M1: bias 1, max 6; subnormals everywhere);
// cbsz/blgp codes from the CDNA 4 ISA guide (7.1.5).
inline constexpr ElementInfo kElements[] = {
    {Element::bf16, "bf16", 16, 8, 7, -1, Specials::ieee},
    {Element::f16, "f16", 16, 5, 10, -1, Specials::ieee},
    {Element::fp8, "fp8", 8, 4, 3, 0, Specials::nan_all_ones},
    {Element::bf8, "bf8", 8, 5, 2, 1, Specials::ieee},
    {Element::fp6, "fp6", 6, 2, 3, 2, Specials::none},
    {Element::bf6, "bf6", 6, 3, 2, 3, Specials::none},
    {Element::fp4, "fp4", 4, 2, 1, 4, Specials::none},
    {Element::i8, "i8", 8, 0, 7, -1, Specials::integer},
};

// Block scales of the scaled f8f6f4 MFMAs (OCP Microscaling): one E8M0 byte e
// per 32 consecutive k, value 2^(e - 127), e = 255 NaN.
inline constexpr int kScaleBlock = 32;
inline constexpr int kScaleBias = 127;
inline constexpr uint8_t kScaleNaN = 0xff;

constexpr const ElementInfo& element_info(Element e) { return kElements[static_cast<int>(e)]; }

constexpr std::optional<Element> element_named(std::string_view name) {
  for (const ElementInfo& e : kElements)
    if (e.name == name) return e.element;
  return std::nullopt;
}

constexpr std::optional<Element> f8f6f4_element(int format) {
  for (const ElementInfo& e : kElements)
    if (e.f8f6f4_format == format && format >= 0) return e.element;
  return std::nullopt;
}

struct MfmaInfo {
  std::string_view mnemonic;  // as LLVM prints it (the assembler also reads older spellings)
  std::string_view opcode;    // LLVM's base opcode name, as the disassembler names it
  uint8_t m, n, k;
  uint8_t ab_regs;   // dwords per lane in B and, unless sparse, A (f8f6f4: with fp8 / bf8 operands)
  Element element;   // of A, and of B unless element_b says otherwise (f8f6f4: the default, fp8; cbsz / blgp choose)
  uint8_t passes;    // 4 clocks each (f8f6f4: with an fp8 / bf8 operand; mfma_passes)
  bool f8f6f4 = false;
  bool scaled = false;  // two extra VGPR operands of E8M0 scales (op_sel picks the byte)
  Element element_b = element;
  bool sparse = false;  // smfmac: A 4:2 sparse (half of ab_regs), src C the index VGPR, D accumulates in place
};

// The CDNA3-style fp8 / bf8 kinds (A and B of their own types, 2 dwords a lane)
// and the sparse kinds, spelled as rows.
constexpr MfmaInfo mixed8(std::string_view mnemonic, std::string_view opcode, uint8_t mn, uint8_t k, Element a,
                          Element b, uint8_t passes) {
  return {mnemonic, opcode, mn, mn, k, 2, a, passes, false, false, b};
}
constexpr MfmaInfo sparse(std::string_view mnemonic, std::string_view opcode, uint8_t mn, uint8_t k, uint8_t b_regs,
                          Element a, Element b, uint8_t passes) {
  return {mnemonic, opcode, mn, mn, k, b_regs, a, passes, false, false, b, true};
}

// Passes: LLVM's SISchedule for gfx940+ (XDL write latency = 4 x passes),
// confirmed by the s_nop counts clang-22 emits before reading each kind's result.
// f8f6f4 kinds: 8 / 16 passes with an fp8 or bf8 operand, half with fp6 / bf6 /
// fp4 operands only: the CDNA 4 ISA guide (7.1.5: 16x16 "if either matrix = F8
// -> 32 cycles, else 16", 32x32 64 / 32), MI355X's rates (fp8 twice, fp6 / fp4
// four times the bf16 MAC rate) and clang-22's hazard recognizer (s_nop 11 /
// 7 before a store of a 16x16x128 result, s_nop 15 + s_nop 3 / s_nop 11 for
// 32x32x64, with and without an 8-bit operand, scaled or not) agree; llvm-mca-22's
// schedule model alone says 4 / 8 for every format.
inline constexpr MfmaInfo kMfmaKinds[] = {
    {"v_mfma_f32_16x16x32_bf16", "V_MFMA_F32_16X16X32_BF16", 16, 16, 32, 4, Element::bf16, 4},
    {"v_mfma_f32_32x32x16_bf16", "V_MFMA_F32_32X32X16_BF16", 32, 32, 16, 4, Element::bf16, 8},
    {"v_mfma_f32_16x16x16_bf16", "V_MFMA_F32_16X16X16BF16_1K", 16, 16, 16, 2, Element::bf16, 4},
    {"v_mfma_f32_32x32x8_bf16", "V_MFMA_F32_32X32X8BF16_1K", 32, 32, 8, 2, Element::bf16, 8},
    {"v_mfma_f32_16x16x16_f16", "V_MFMA_F32_16X16X16F16", 16, 16, 16, 2, Element::f16, 4},
    {"v_mfma_f32_32x32x8_f16", "V_MFMA_F32_32X32X8F16", 32, 32, 8, 2, Element::f16, 8},
    {"v_mfma_f32_16x16x32_f16", "V_MFMA_F32_16X16X32_F16", 16, 16, 32, 4, Element::f16, 4},
    {"v_mfma_f32_32x32x16_f16", "V_MFMA_F32_32X32X16_F16", 32, 32, 16, 4, Element::f16, 8},
    {"v_mfma_i32_16x16x32_i8", "V_MFMA_I32_16X16X32I8", 16, 16, 32, 2, Element::i8, 4},
    {"v_mfma_i32_32x32x16_i8", "V_MFMA_I32_32X32X16I8", 32, 32, 16, 2, Element::i8, 8},
    {"v_mfma_i32_16x16x64_i8", "V_MFMA_I32_16X16X64_I8", 16, 16, 64, 4, Element::i8, 4},
    {"v_mfma_i32_32x32x32_i8", "V_MFMA_I32_32X32X32_I8", 32, 32, 32, 4, Element::i8, 8},
    {"v_mfma_f32_16x16x128_f8f6f4", "V_MFMA_F32_16X16X128_F8F6F4", 16, 16, 128, 8, Element::fp8, 8, true},
    {"v_mfma_f32_32x32x64_f8f6f4", "V_MFMA_F32_32X32X64_F8F6F4", 32, 32, 64, 8, Element::fp8, 16, true},
    {"v_mfma_scale_f32_16x16x128_f8f6f4", "V_MFMA_SCALE_F32_16X16X128_F8F6F4", 16, 16, 128, 8, Element::fp8, 8, true,
     true},
    {"v_mfma_scale_f32_32x32x64_f8f6f4", "V_MFMA_SCALE_F32_32X32X64_F8F6F4", 32, 32, 64, 8, Element::fp8, 16, true,
     true},
    // CDNA3's fp8 kinds, OCP E4M3 / E5M2 on gfx950: 4 / 8 passes (llvm-mca-22's
    // latency 8 / 12; clang-22 emits s_nop 7 before a store of a 16x16x32 result).
    mixed8("v_mfma_f32_16x16x32_fp8_fp8", "V_MFMA_F32_16X16X32_FP8_FP8", 16, 32, Element::fp8, Element::fp8, 4),
    mixed8("v_mfma_f32_16x16x32_fp8_bf8", "V_MFMA_F32_16X16X32_FP8_BF8", 16, 32, Element::fp8, Element::bf8, 4),
    mixed8("v_mfma_f32_16x16x32_bf8_fp8", "V_MFMA_F32_16X16X32_BF8_FP8", 16, 32, Element::bf8, Element::fp8, 4),
    mixed8("v_mfma_f32_16x16x32_bf8_bf8", "V_MFMA_F32_16X16X32_BF8_BF8", 16, 32, Element::bf8, Element::bf8, 4),
    mixed8("v_mfma_f32_32x32x16_fp8_fp8", "V_MFMA_F32_32X32X16_FP8_FP8", 32, 16, Element::fp8, Element::fp8, 8),
    mixed8("v_mfma_f32_32x32x16_fp8_bf8", "V_MFMA_F32_32X32X16_FP8_BF8", 32, 16, Element::fp8, Element::bf8, 8),
    mixed8("v_mfma_f32_32x32x16_bf8_fp8", "V_MFMA_F32_32X32X16_BF8_FP8", 32, 16, Element::bf8, Element::fp8, 8),
    mixed8("v_mfma_f32_32x32x16_bf8_bf8", "V_MFMA_F32_32X32X16_BF8_BF8", 32, 16, Element::bf8, Element::bf8, 8),
    // Sparse kinds (CDNA3's and gfx950's doubled K): 4 / 8 passes for every
    // type (llvm-mca-22's latency 8 / 12; clang-22: s_nop 7 / s_nop 11 before a
    // store of a 16x16 / 32x32 result, e.g. 16x16x128 fp8 and 32x32x32 bf16).
    sparse("v_smfmac_f32_16x16x32_f16", "V_SMFMAC_F32_16X16X32_F16", 16, 32, 4, Element::f16, Element::f16, 4),
    sparse("v_smfmac_f32_32x32x16_f16", "V_SMFMAC_F32_32X32X16_F16", 32, 16, 4, Element::f16, Element::f16, 8),
    sparse("v_smfmac_f32_16x16x64_f16", "V_SMFMAC_F32_16X16X64_F16", 16, 64, 8, Element::f16, Element::f16, 4),
    sparse("v_smfmac_f32_32x32x32_f16", "V_SMFMAC_F32_32X32X32_F16", 32, 32, 8, Element::f16, Element::f16, 8),
    sparse("v_smfmac_f32_16x16x32_bf16", "V_SMFMAC_F32_16X16X32_BF16", 16, 32, 4, Element::bf16, Element::bf16, 4),
    sparse("v_smfmac_f32_32x32x16_bf16", "V_SMFMAC_F32_32X32X16_BF16", 32, 16, 4, Element::bf16, Element::bf16, 8),
    sparse("v_smfmac_f32_16x16x64_bf16", "V_SMFMAC_F32_16X16X64_BF16", 16, 64, 8, Element::bf16, Element::bf16, 4),
    sparse("v_smfmac_f32_32x32x32_bf16", "V_SMFMAC_F32_32X32X32_BF16", 32, 32, 8, Element::bf16, Element::bf16, 8),
    sparse("v_smfmac_i32_16x16x64_i8", "V_SMFMAC_I32_16X16X64_I8", 16, 64, 4, Element::i8, Element::i8, 4),
    sparse("v_smfmac_i32_32x32x32_i8", "V_SMFMAC_I32_32X32X32_I8", 32, 32, 4, Element::i8, Element::i8, 8),
    sparse("v_smfmac_i32_16x16x128_i8", "V_SMFMAC_I32_16X16X128_I8", 16, 128, 8, Element::i8, Element::i8, 4),
    sparse("v_smfmac_i32_32x32x64_i8", "V_SMFMAC_I32_32X32X64_I8", 32, 64, 8, Element::i8, Element::i8, 8),
    sparse("v_smfmac_f32_16x16x64_fp8_fp8", "V_SMFMAC_F32_16X16X64_FP8_FP8", 16, 64, 4, Element::fp8, Element::fp8, 4),
    sparse("v_smfmac_f32_16x16x64_fp8_bf8", "V_SMFMAC_F32_16X16X64_FP8_BF8", 16, 64, 4, Element::fp8, Element::bf8, 4),
    sparse("v_smfmac_f32_16x16x64_bf8_fp8", "V_SMFMAC_F32_16X16X64_BF8_FP8", 16, 64, 4, Element::bf8, Element::fp8, 4),
    sparse("v_smfmac_f32_16x16x64_bf8_bf8", "V_SMFMAC_F32_16X16X64_BF8_BF8", 16, 64, 4, Element::bf8, Element::bf8, 4),
    sparse("v_smfmac_f32_32x32x32_fp8_fp8", "V_SMFMAC_F32_32X32X32_FP8_FP8", 32, 32, 4, Element::fp8, Element::fp8, 8),
    sparse("v_smfmac_f32_32x32x32_fp8_bf8", "V_SMFMAC_F32_32X32X32_FP8_BF8", 32, 32, 4, Element::fp8, Element::bf8, 8),
    sparse("v_smfmac_f32_32x32x32_bf8_fp8", "V_SMFMAC_F32_32X32X32_BF8_FP8", 32, 32, 4, Element::bf8, Element::fp8, 8),
    sparse("v_smfmac_f32_32x32x32_bf8_bf8", "V_SMFMAC_F32_32X32X32_BF8_BF8", 32, 32, 4, Element::bf8, Element::bf8, 8),
    sparse("v_smfmac_f32_16x16x128_fp8_fp8", "V_SMFMAC_F32_16X16X128_FP8_FP8", 16, 128, 8, Element::fp8, Element::fp8, 4),
    sparse("v_smfmac_f32_16x16x128_fp8_bf8", "V_SMFMAC_F32_16X16X128_FP8_BF8", 16, 128, 8, Element::fp8, Element::bf8, 4),
    sparse("v_smfmac_f32_16x16x128_bf8_fp8", "V_SMFMAC_F32_16X16X128_BF8_FP8", 16, 128, 8, Element::bf8, Element::fp8, 4),
    sparse("v_smfmac_f32_16x16x128_bf8_bf8", "V_SMFMAC_F32_16X16X128_BF8_BF8", 16, 128, 8, Element::bf8, Element::bf8, 4),
    sparse("v_smfmac_f32_32x32x64_fp8_fp8", "V_SMFMAC_F32_32X32X64_FP8_FP8", 32, 64, 8, Element::fp8, Element::fp8, 8),
    sparse("v_smfmac_f32_32x32x64_fp8_bf8", "V_SMFMAC_F32_32X32X64_FP8_BF8", 32, 64, 8, Element::fp8, Element::bf8, 8),
    sparse("v_smfmac_f32_32x32x64_bf8_fp8", "V_SMFMAC_F32_32X32X64_BF8_FP8", 32, 64, 8, Element::bf8, Element::fp8, 8),
    sparse("v_smfmac_f32_32x32x64_bf8_bf8", "V_SMFMAC_F32_32X32X64_BF8_BF8", 32, 64, 8, Element::bf8, Element::bf8, 8),
};

constexpr char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

constexpr bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

// By mnemonic or LLVM base opcode name, in any case.
constexpr const MfmaInfo* find_mfma(std::string_view name) {
  for (const MfmaInfo& kind : kMfmaKinds)
    if (same_ignoring_case(kind.mnemonic, name) || kind.opcode == name) return &kind;
  return nullptr;
}

constexpr int bits_of(Element e) { return element_info(e).bits; }

// Sparse kinds, after the CDNA 3 ISA guide's SMFMAC section and AMD's matrix
// instruction calculator (K[] layout): lane l's A values come in groups of 4 k
// (k = kpl*(l / M) + 4g .. +3), two kept per group as A elements 2g and 2g+1.
// Group g's 4 index bits are at 4*(g + groups*set) of the lane's index VGPR:
// bits 1:0 give the position (0-3) of element 2g in its group, bits 3:2 that of
// 2g+1. abid picks the set when cbsz is 0 (cbsz != 0: set 0); a set is 2 bits per
// kept value, so CDNA3's 16-bit kinds have 4 sets, its 8-bit kinds 2, gfx950's
// doubled-K kinds 2 (16-bit) and 1 (8-bit).
constexpr int sparse_groups(const MfmaInfo& kind) { return kind.k / (64 / kind.m) / 4; }
constexpr int sparse_index_sets(const MfmaInfo& kind) { return 32 / (4 * sparse_groups(kind)); }
constexpr int sparse_index_shift(const MfmaInfo& kind, int set, int group) {
  return 4 * (group + sparse_groups(kind) * set);
}
constexpr int a_regs(const MfmaInfo& kind) { return kind.sparse ? kind.ab_regs / 2 : kind.ab_regs; }

// The k of element e of lane l's B registers in a sparse kind, the k its A
// counterpart's index positions name (A: group g of lane l covers k = kpl*(l / M)
// + 4g .. +3). gfx950's doubled-K 8-bit kinds (16x16x128, 32x32x64: kpl = 32)
// hold B as two halves of K/2, 16 elements of each per lane (CDNA3's 16x16x64 /
// 32x32x32 layout twice): e < 16 at k = 16*(l / N) + e, e >= 16 at K/2 +
// 16*(l / N) + e - 16. Evidence: AITER's fmha_v4_fwd mxfp4 kernel sums softmax
// rows with v_smfmac_f32_16x16x128_fp8_fp8 (A = 1.0 at half of the groups, B =
// its P operand), right only with this pairing (docs/emulator.md, "Sparse MFMAs").
// Every other kind: k = kpl*(l / N) + e.
constexpr int sparse_b_k(const MfmaInfo& kind, int lane, int e) {
  const int kpl = kind.k / (64 / kind.n);
  if (bits_of(kind.element_b) != 8 || kpl != 32) return kpl * (lane / kind.n) + e;
  return (e / 16) * (kind.k / 2) + 16 * (lane / kind.n) + e % 16;
}

// Whether `kind` takes operands of type `e` (f8f6f4 kinds: any format with a cbsz / blgp code).
constexpr bool takes(const MfmaInfo& kind, Element e) {
  return kind.f8f6f4 ? element_info(e).f8f6f4_format >= 0 : kind.element == e;
}

// Dwords per lane of an A or B operand of type `e` (f8f6f4: fp8 8, fp6 6, fp4 4).
constexpr int ab_regs(const MfmaInfo& kind, Element e) {
  return kind.f8f6f4 ? kind.k / (64 / kind.m) * bits_of(e) / 32 : kind.ab_regs;
}

// Passes of `kind` with A of type `a` and B of type `b`: an f8f6f4 kind runs
// twice as fast when neither operand is fp8 or bf8.
constexpr int mfma_passes(const MfmaInfo& kind, Element a, Element b) {
  return kind.f8f6f4 && bits_of(a) < 8 && bits_of(b) < 8 ? kind.passes / 2 : kind.passes;
}

}  // namespace cdna4::gfx950
