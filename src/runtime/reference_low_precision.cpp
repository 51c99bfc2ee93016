// The CPU reference for gfx950's low-precision element types (reference.hpp).
#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "cdna4/error.hpp"
#include "cdna4/reference.hpp"
#include "common/element_formats.hpp"
#include "common/mfma_fused_groups.hpp"
#include "common/nan_rules.hpp"
#include "vocabulary/rows.hpp"

namespace cdna4 {
namespace {

gfx950::Element operand_element(DataType type) {
  if (const auto e = vocabulary::mfma_element(type)) return *e;
  throw Error(fmt::format("reference: expected a {} element type, got {}",
                          vocabulary::names<DataType>([](const auto& row) { return row.element.has_value(); }),
                          to_string(type)));
}

uint32_t code_at(std::span<const uint8_t> bytes, int bits, int64_t i) {
  const int64_t bit = bits * i;
  uint32_t word = 0;
  for (int64_t byte = bit / 8; byte <= (bit + bits - 1) / 8; ++byte)
    word |= uint32_t(bytes[size_t(byte)]) << (8 * (byte - bit / 8));
  return (word >> (bit % 8)) & ((1u << bits) - 1);
}

// The values of a packed rows x cols matrix.
std::vector<float> unpack(DataType type, std::span<const uint8_t> bytes, int64_t rows, int64_t cols, const char* name) {
  const gfx950::Element e = operand_element(type);
  const int bits = gfx950::bits_of(e);
  if (int64_t(bytes.size()) * 8 < rows * cols * bits)
    throw Error(fmt::format("reference: {} holds {} bytes, {} x {} elements of {} bits need {}", name, bytes.size(),
                            rows, cols, bits, (rows * cols * bits + 7) / 8));
  std::vector<float> values(size_t(rows * cols));
  for (int64_t i = 0; i < rows * cols; ++i) values[size_t(i)] = gfx950::element_value(e, code_at(bytes, bits, i));
  return values;
}

void check_scales(std::span<const uint8_t> scales, int64_t count, const char* name) {
  if (!scales.empty() && int64_t(scales.size()) != count)
    throw Error(fmt::format("reference: {} holds {} scale bytes, expected {}", name, scales.size(), count));
}

}  // namespace

float decode_element(DataType type, uint32_t bits) { return gfx950::element_value(operand_element(type), bits); }

uint32_t encode_element(DataType type, float value) { return gfx950::encode_element(operand_element(type), value); }

std::vector<uint8_t> pack_elements(DataType type, std::span<const uint32_t> codes) {
  const int bits = gfx950::bits_of(operand_element(type));
  std::vector<uint8_t> bytes((codes.size() * bits + 7) / 8, 0);
  for (size_t i = 0; i < codes.size(); ++i)
    for (int b = 0; b < bits; ++b)
      if ((codes[i] >> b) & 1) bytes[(i * bits + b) / 8] |= uint8_t(1u << ((i * bits + b) % 8));
  return bytes;
}

std::vector<uint8_t> reference_operand(DataType type, std::span<const uint8_t> data, Layout layout, Operand op,
                                       int64_t mn, int64_t k, int64_t ld, int64_t first) {
  const int bits = element_bits(type);
  const bool stored_k_major = k_major(layout, op);
  const int64_t last = first + (stored_k_major ? (k - 1) * ld + mn : (mn - 1) * ld + k);
  if (int64_t(data.size()) * 8 < last * bits)
    throw Error(fmt::format("reference: {} holds {} bytes; its {} x {} matrix (layout {}, ld {}) from element {} needs {}",
                            to_string(op), data.size(), mn, k, to_string(layout), ld, first, (last * bits + 7) / 8));
  std::vector<uint32_t> codes(size_t(mn * k));
  for (int64_t i = 0; i < mn; ++i)
    for (int64_t x = 0; x < k; ++x) {
      const uint32_t code = code_at(data, bits, first + (stored_k_major ? x * ld + i : i * ld + x));
      codes[size_t(op == Operand::a ? i * k + x : x * mn + i)] = code;
    }
  return pack_elements(type, codes);
}

std::vector<float> reference_gemm(DataType type_a, std::span<const uint8_t> a, DataType type_b,
                                  std::span<const uint8_t> b, int64_t m, int64_t n, int64_t k,
                                  std::span<const uint8_t> scale_a, std::span<const uint8_t> scale_b) {
  constexpr int kBlock = gfx950::kScaleBlock;
  if ((!scale_a.empty() || !scale_b.empty()) && k % kBlock != 0)
    throw Error(fmt::format("reference: scaled K must be a multiple of {}, got {}", kBlock, k));
  const std::vector<float> av = unpack(type_a, a, m, k, "A"), bv = unpack(type_b, b, k, n, "B");
  check_scales(scale_a, m * (k / kBlock), "scale_a");
  check_scales(scale_b, (k / kBlock) * n, "scale_b");
  auto scale_of = [](std::span<const uint8_t> s, int64_t i) {
    return s.empty() ? uint8_t(gfx950::kScaleBias) : s[size_t(i)];
  };
  std::vector<float> c(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t x = 0; x < k; ++x)
        acc = gfx950::fma_block_scaled(av[size_t(i * k + x)], bv[size_t(x * n + j)],
                                       scale_of(scale_a, i * (k / kBlock) + x / kBlock),
                                       scale_of(scale_b, (x / kBlock) * n + j), acc);
      c[size_t(i * n + j)] = gfx950::mfma_result(acc);
    }
  return c;
}

std::vector<float> reference_gemm(MfmaPolicy policy, DataType type_a, std::span<const uint8_t> a, DataType type_b,
                                  std::span<const uint8_t> b, int64_t m, int64_t n, int64_t k,
                                  std::span<const uint8_t> scale_a, std::span<const uint8_t> scale_b) {
  if (policy == MfmaPolicy::fp32_fma_chain_k_order) return reference_gemm(type_a, a, type_b, b, m, n, k, scale_a, scale_b);
  const gfx950::Element ea = operand_element(type_a), eb = operand_element(type_b);
  auto eight_bit_float = [](gfx950::Element e) { return e == gfx950::Element::fp8 || e == gfx950::Element::bf8; };
  const bool kind_exists = (ea == eb && !eight_bit_float(ea) && gfx950::bits_of(ea) == 16) ||
                           (eight_bit_float(ea) && eight_bit_float(eb));
  if (!kind_exists || !scale_a.empty() || !scale_b.empty())
    throw Error(fmt::format("reference: the {} policy covers bf16 x bf16, f16 x f16 and fp8 / bf8 without scales, not "
                            "{} x {}{}",
                            to_string(policy), to_string(type_a), to_string(type_b),
                            scale_a.empty() && scale_b.empty() ? "" : " with scales"));
  const std::vector<float> av = unpack(type_a, a, m, k, "A"), bv = unpack(type_b, b, k, n, "B");
  const int group = gfx950::fused_group_size(ea);
  std::vector<float> c(size_t(m * n));
  float column[16];
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      float acc = 0.0f;
      for (int64_t k0 = 0; k0 < k; k0 += group) {
        const int count = int(std::min<int64_t>(group, k - k0));
        for (int x = 0; x < count; ++x) column[x] = bv[size_t((k0 + x) * n + j)];
        acc = gfx950::fused_group_step(&av[size_t(i * k + k0)], column, count, ea, eb, acc);
      }
      c[size_t(i * n + j)] = acc;
    }
  return c;
}

std::vector<uint8_t> to_output_bits(const std::vector<float>& c, DataType out) {
  if (out == DataType::f32 || out == DataType::bf16) return to_output_bits(c, out == DataType::bf16);
  if (out != DataType::f16)
    throw Error(fmt::format("reference: {} is not an output type ({})", to_string(out), vocabulary::names<OutType>()));
  std::vector<uint8_t> bytes(c.size() * 2);
  for (size_t i = 0; i < c.size(); ++i) {
    const uint16_t h = uint16_t(gfx950::encode_element(gfx950::Element::f16, c[i]));
    std::memcpy(&bytes[2 * i], &h, 2);
  }
  return bytes;
}

}  // namespace cdna4
