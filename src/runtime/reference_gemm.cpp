#include "cdna4/reference.hpp"

#include <cmath>
#include <cstring>

#include "common/nan_rules.hpp"

namespace cdna4 {

float bf16_to_float(uint16_t bits) {
  const uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t float_to_bf16(float value) {
  uint32_t u;
  std::memcpy(&u, &value, 4);
  if (std::isnan(value)) return uint16_t((u | 0x400000u) >> 16);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

std::vector<float> reference_gemm(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b, int64_t m,
                                  int64_t n, int64_t k) {
  std::vector<float> bf(b.size());
  for (size_t i = 0; i < b.size(); ++i) bf[i] = bf16_to_float(b[i]);
  std::vector<float> c(size_t(m * n), 0.0f);
  std::vector<float> row(static_cast<size_t>(k), 0.0f);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t x = 0; x < k; ++x) row[size_t(x)] = bf16_to_float(a[size_t(i * k + x)]);
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t x = 0; x < k; ++x) acc = std::fma(row[size_t(x)], bf[size_t(x * n + j)], acc);
      c[size_t(i * n + j)] = gfx950::mfma_result(acc);
    }
  }
  return c;
}

std::vector<uint8_t> to_output_bits(const std::vector<float>& c, bool bf16) {
  std::vector<uint8_t> bytes(c.size() * (bf16 ? 2 : 4));
  for (size_t i = 0; i < c.size(); ++i) {
    if (bf16) {
      const uint16_t h = float_to_bf16(c[i]);
      std::memcpy(&bytes[2 * i], &h, 2);
    } else {
      std::memcpy(&bytes[4 * i], &c[i], 4);
    }
  }
  return bytes;
}

size_t differing_elements(const std::vector<uint8_t>& x, const std::vector<uint8_t>& y, size_t element_bytes) {
  if (x.size() != y.size()) return SIZE_MAX;
  size_t n = 0;
  for (size_t i = 0; i < x.size(); i += element_bytes) n += std::memcmp(&x[i], &y[i], element_bytes) != 0;
  return n;
}

}  // namespace cdna4
