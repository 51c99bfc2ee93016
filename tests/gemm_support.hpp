#pragma once
// GEMM test data: bf16 matrices of small integers or normally distributed values.
#include <cstdint>
#include <optional>
#include <random>
#include <span>
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

// bf16 elements as the bytes a GemmProblem points at.
inline std::span<const uint8_t> bytes_of(const std::vector<uint16_t>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(uint16_t)};
}

// A batch-1 problem on packed A (M x K) and B (K x N), layout nn unless given.
inline GemmProblem problem(int64_t m, int64_t n, int64_t k, std::span<const uint8_t> a, std::span<const uint8_t> b,
                           std::optional<OutType> out = {}) {
  GemmProblem p;
  p.shape = shape(m, n, k);
  p.shape.out = out;
  p.a = a;
  p.b = b;
  return p;
}

// The problem with MX scales.
inline GemmProblem scaled(GemmProblem p, std::span<const uint8_t> scale_a, std::span<const uint8_t> scale_b) {
  p.scale_a = scale_a;
  p.scale_b = scale_b;
  return p;
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
