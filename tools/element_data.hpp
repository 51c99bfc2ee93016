#pragma once
// The tools' input tensors: read from a file of exactly the packed size, or
// generated (normal values, or small integers whose sums stay exact in fp32).
#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cdna4/reference.hpp"
#include "input_file.hpp"

namespace cdna4::tools {

// `elements` of `type`, packed; `what` names the tensor ("A", "Q") in errors.
inline std::vector<uint8_t> read_elements(const std::string& path, DataType type, int64_t elements, const char* what) {
  const size_t bytes = packed_bytes(type, elements);
  const std::vector<char> data = read_file_of_size(
      path, bytes, what, fmt::format("{} needs {} {} elements = {} bytes", what, elements, to_string(type), bytes));
  return std::vector<uint8_t>(data.begin(), data.end());
}

// Normal values or small integers (-4..4, exact in every type), rounded into `type`.
inline std::vector<uint8_t> generate_elements(DataType type, int64_t elements, uint64_t seed, bool integer) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> small(-4, 4);
  std::vector<uint32_t> codes(static_cast<size_t>(elements));
  for (auto& c : codes) {
    const float x = integer ? float(small(rng)) : normal(rng);
    c = type == DataType::f32 ? std::bit_cast<uint32_t>(x) : encode_element(type, x);
  }
  if (type != DataType::f32) return pack_elements(type, codes);
  std::vector<uint8_t> bytes(codes.size() * 4);
  std::memcpy(bytes.data(), codes.data(), bytes.size());
  return bytes;
}

}  // namespace cdna4::tools
