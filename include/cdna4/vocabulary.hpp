#pragma once
// The words the schedule format, the tools, the Python module and the CPU
// reference share: element types, layouts, MFMA kinds, operands, op kinds,
// bias dimensions and output types. Each value has one name, as the schedule
// format and the command lines spell it; to_string gives it and parse<E> reads
// it back (one row per value in src/vocabulary/rows.hpp).
#include <optional>
#include <string_view>

namespace cdna4 {

enum class Operand { a, b };
// Element types: f32 (accumulator, C), bf16 and f16, and the OCP 8/6/4-bit
// formats as gfx950 implements them: fp8 E4M3, bf8 E5M2, fp6 E2M3, bf6 E3M2, fp4 E2M1.
enum class DataType { bf16, f32, f16, fp8, bf8, fp6, bf6, fp4 };
// Operand layouts, BLAS style: the first letter is A (n: M x K row-major, t: K x M
// row-major), the second B (n: K x N row-major, t: N x K row-major).
enum class Layout { nn, nt, tn, tt };
// Named by their mnemonics ("v_mfma_f32_16x16x32_bf16").
enum class MfmaKind {
  f32_16x16x32_bf16, f32_32x32x16_bf16, f32_16x16x32_f16, f32_32x32x16_f16,
  f32_16x16x128_f8f6f4, f32_32x32x64_f8f6f4,  // A and B in any of fp8, bf8, fp6, bf6, fp4 (cbsz / blgp)
  scale_f32_16x16x128_f8f6f4, scale_f32_32x32x64_f8f6f4  // ... with E8M0 scales (OCP Microscaling)
};
enum class OpKind { g2s, s2r, mfma, barrier, setprio, wait };
enum class BiasDim { none, m, n };  // a fused epilogue's bias per row (length M) or per column (length N)
// The type a GEMM writes D in: f32, or bf16 / f16 rounded to nearest even.
enum class OutType { f32, bf16, f16 };
// How the emulator and the CPU reference add an MFMA's products (docs/emulator.md,
// "MFMA arithmetic policies"): "fp32-fma-chain-k-order" (the default, an
// assumption) or "cdna3-fused-groups" (MMA-Sim's hardware-measured CDNA3 algorithm).
enum class MfmaPolicy { fp32_fma_chain_k_order, cdna3_fused_groups };

const char* to_string(Operand operand);
const char* to_string(DataType type);
const char* to_string(Layout layout);
const char* to_string(MfmaKind kind);  // the mnemonic
const char* to_string(OpKind kind);
const char* to_string(BiasDim dim);
const char* to_string(OutType out);
const char* to_string(MfmaPolicy policy);

int element_bits(DataType type);
int element_bytes(OutType out);
DataType data_type(OutType out);
// Whether the operand is stored with K as its slow dimension (A "t", B "n").
bool k_major(Layout layout, Operand operand);

struct MfmaShape {
  int m, n, k;
  const char* mnemonic;
};
MfmaShape mfma_shape(MfmaKind kind);

// The value of E named `name`; a name E does not have throws cdna4::Error
// listing the names it has (parse<Layout>("tx"): `unknown layout "tx": expected
// nn, nt, tn or tt`). Defined for every enum above.
template <class E>
E parse(std::string_view name);
// The same, empty for a name E does not have.
template <class E>
std::optional<E> try_parse(std::string_view name);

}  // namespace cdna4
