#pragma once
// N(0, 1) samples rounded to bf16, as raw little-endian bytes.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "cdna4/reference.hpp"

namespace cdna4::test {

inline std::vector<uint8_t> random_bf16(int64_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<uint8_t> bytes(size_t(count) * 2);
  for (int64_t i = 0; i < count; ++i) {
    const uint16_t bits = float_to_bf16(normal(rng));
    std::memcpy(&bytes[size_t(i) * 2], &bits, 2);
  }
  return bytes;
}

}  // namespace cdna4::test
