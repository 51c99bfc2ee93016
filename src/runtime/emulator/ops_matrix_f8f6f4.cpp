// A * B of the f8f6f4 MFMAs. Lane l holds A[l % M][32*(l / M) + e] and
// B[32*(l / N) + e][l % N] as element e of its A / B registers (bits
// [w*e, w*e + w) of the registers read as one little-endian bit string, w = 8,
// 6 or 4); a scaled kind's scale VGPR gives lane l the byte op_sel / op_sel_hi
// pick, the E8M0 scale of exactly those 32 elements. Sources: docs/emulator.md.
#include <array>
#include <cmath>

#include "common/element_formats.hpp"
#include "runtime/emulator/mfma_arithmetic.hpp"
#include "runtime/emulator/mfma_f8f6f4.hpp"

namespace cdna4::emu {
namespace {

using gfx950::Element;
using gfx950::ElementInfo;

constexpr int kMaxElements = 2048;  // M x K of both shapes
constexpr int kFormats = 5;         // cbsz / blgp codes 0..4

// Every encoding's value, per format code.
const std::array<std::array<float, 256>, kFormats>& value_tables() {
  static const auto tables = [] {
    std::array<std::array<float, 256>, kFormats> t{};
    for (int format = 0; format < kFormats; ++format) {
      const Element e = *gfx950::f8f6f4_element(format);
      for (uint32_t bits = 0; bits < (1u << gfx950::bits_of(e)); ++bits)
        t[format][bits] = gfx950::element_value(e, bits);
    }
    return t;
  }();
  return tables;
}

// Lane `lane`'s `count` elements of `width` bits (one bit string over its
// registers first_reg, first_reg + 1, ...) as values, to out[0], out[stride], ...
void unpack_lane(const Wave& w, uint32_t first_reg, int lane, int count, int width, const std::array<float, 256>& table,
                 float* out, int stride) {
  const int regs = (count * width + 31) / 32;
  if (width == 8) {  // fp8 / bf8: byte b of register r is element 4 r + b
    for (int r = 0; r < regs; ++r) {
      const uint32_t x = w.v(first_reg + r)[lane];
      float* o = out + 4 * r * stride;
      o[0] = table[x & 0xff];
      o[stride] = table[(x >> 8) & 0xff];
      o[2 * stride] = table[(x >> 16) & 0xff];
      o[3 * stride] = table[x >> 24];
    }
    return;
  }
  uint32_t word[9] = {};  // up to 8 registers (32 fp8 elements) and a zero past them
  for (int r = 0; r < regs; ++r) word[r] = w.v(first_reg + r)[lane];
  const uint32_t mask = (1u << width) - 1;
  for (int e = 0; e < count; ++e) {
    const int bit = width * e;
    const uint64_t window = word[bit / 32] | uint64_t(word[bit / 32 + 1]) << 32;
    out[e * stride] = table[uint32_t(window >> (bit % 32)) & mask];
  }
}

// Whether v * 2^s is exact in fp32 for every finite value v of type f: the
// smallest subnormal and the largest value both stay inside fp32's range.
bool scales_exactly(const ElementInfo& f, int s) {
  const int bias = gfx950::exponent_bias(f);
  const int smallest = 1 - bias - f.mantissa_bits;  // exponent of the smallest subnormal
  const int largest = int(gfx950::largest_finite_code(f) >> f.mantissa_bits) - bias + 1;  // max < 2^largest
  return s + smallest >= -149 && s + largest <= 128;
}

// Lane l's scale bytes: byte `byte` of the scale VGPR, or 1.0 (127) unscaled.
void read_scales(const Wave& w, const Inst& in, bool scaled, int operand, int byte, uint8_t* out) {
  for (int l = 0; l < kLanes; ++l)
    out[l] = scaled ? uint8_t(w.v(in.src[3 + operand].index)[l] >> (8 * byte)) : uint8_t(gfx950::kScaleBias);
}

}  // namespace

void mfma_f8f6f4_multiply(const Wave& w, const Inst& in, const gfx950::MfmaInfo& kind, float* acc) {
  const int M = kind.m, N = kind.n, K = kind.k, per_lane = K / (kLanes / M);
  const int formats[2] = {matrix_sel::format_a(in.offset), matrix_sel::format_b(in.offset)};
  uint8_t scales[2][kLanes];
  read_scales(w, in, kind.scaled, 0, matrix_sel::scale_byte_a(in.offset), scales[0]);
  read_scales(w, in, kind.scaled, 1, matrix_sel::scale_byte_b(in.offset), scales[1]);
  // Element (row or column x, k) of A (operand 0, [x][k]) or B (operand 1, [k][x]).
  auto index = [&](int operand, int x, int k) { return operand == 0 ? x * K + k : k * N + x; };
  alignas(32) float values[2][kMaxElements];
  bool exact = true;
  for (int operand = 0; operand < 2; ++operand) {
    const auto& table = value_tables()[formats[operand]];
    const ElementInfo& f = gfx950::element_info(*gfx950::f8f6f4_element(formats[operand]));
    const int x_count = operand == 0 ? M : N, stride = operand == 0 ? 1 : N;
    for (int l = 0; l < kLanes; ++l)
      unpack_lane(w, in.src[operand].index, l, per_lane, f.bits, table,
                  values[operand] + index(operand, l % x_count, per_lane * (l / x_count)), stride);
    if (kind.scaled)  // unscaled elements (scale 1.0) are fp32 values
      for (int l = 0; l < kLanes; ++l) {
        const uint8_t s = scales[operand][l];
        exact = exact && (s == gfx950::kScaleNaN || scales_exactly(f, s - gfx950::kScaleBias));
      }
  }
  if (exact) {  // scaled elements are fp32 values: the fp32 chain forms each product exactly
    if (kind.scaled)
      for (int operand = 0; operand < 2; ++operand)
        for (int l = 0; l < kLanes; ++l) {
          const uint8_t s = scales[operand][l];
          const float factor = s == gfx950::kScaleNaN ? NAN : std::ldexp(1.0f, s - gfx950::kScaleBias);
          for (int e = 0; e < per_lane; ++e) values[operand][index(operand, l % M, per_lane * (l / M) + e)] *= factor;
        }
    mfma_fma_chain(M, N, K, values[0], values[1], acc);
    return;
  }
  // A scale takes some element out of fp32's range: form every product exactly instead.
  for (int k = 0; k < K; ++k) {
    const int block = k / per_lane;  // lanes M * block + i hold A's row i and B's column i there
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j)
        acc[i * N + j] = gfx950::fma_block_scaled(values[0][i * K + k], values[1][k * N + j], scales[0][M * block + i],
                                                  scales[1][N * block + j], acc[i * N + j]);
  }
}

}  // namespace cdna4::emu
