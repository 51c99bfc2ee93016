#pragma once
// GEMM test data: bf16 matrices of small integers or normally distributed values.
#include <cstdint>
#include <random>
#include <vector>

#include "cdna4/gemm.hpp"
#include "cdna4/reference.hpp"

namespace cdna4::test {

// Small integers: every partial sum is exact in fp32, so any summation order
// gives the same bits (the result holds on any conforming hardware).
inline std::vector<uint16_t> integer_matrix(size_t count, uint32_t seed, int range = 4) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-range, range);
  std::vector<uint16_t> out(count);
  for (auto& x : out) x = float_to_bf16(float(d(rng)));
  return out;
}

inline GemmShape shape(int64_t m, int64_t n, int64_t k) {
  GemmShape s;
  s.m = m;
  s.n = n;
  s.k = k;
  return s;
}

inline std::vector<uint16_t> random_matrix(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<uint16_t> out(count);
  for (auto& x : out) x = float_to_bf16(d(rng));
  return out;
}

// count elements of `type`, packed densely: small integers (-range..range, as
// the type can hold them exactly: fp4 reaches 6, fp6 7.5) or normally
// distributed values rounded into the type.
inline std::vector<uint8_t> typed_matrix(DataType type, size_t count, bool integers, uint32_t seed, int range = 4) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> whole(-range, range);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<uint32_t> codes(count);
  for (auto& c : codes) c = encode_element(type, integers ? float(whole(rng)) : normal(rng));
  return pack_elements(type, codes);
}

// E8M0 scale bytes: 127 (1.0) each, or uniform in 124..130 (2^-3 .. 2^3).
inline std::vector<uint8_t> scale_bytes(size_t count, bool ones, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(124, 130);
  std::vector<uint8_t> out(count, 127);
  if (!ones)
    for (auto& x : out) x = uint8_t(d(rng));
  return out;
}

}  // namespace cdna4::test
