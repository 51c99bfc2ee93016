// The CPU reference of the fused GEMM epilogue (the statement is in reference.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "cdna4/error.hpp"
#include "cdna4/reference.hpp"
#include "common/transcendental.hpp"

namespace cdna4 {
namespace {

// The kernel's fp32 constants (store_c.cpp), by bit pattern.
const float kMinusLog2e = std::bit_cast<float>(0xbfb8aa3bu);
const float kMinus2Log2e = std::bit_cast<float>(0xc038aa3bu);
const float kGeluC0 = std::bit_cast<float>(0x3f4c422au);
const float kGeluC1 = std::bit_cast<float>(0x3d122279u);

// IEEE maxNum, as v_max_f32: a NaN operand yields the other.
float max_num(float a, float b) { return std::isnan(a) ? b : std::isnan(b) ? a : (b > a ? b : a); }

float element(DataType type, std::span<const uint8_t> bytes, size_t i) {
  if (type == DataType::f32) {
    float f;
    std::memcpy(&f, &bytes[4 * i], 4);
    return f;
  }
  return decode_element(type, uint32_t(bytes[2 * i]) | uint32_t(bytes[2 * i + 1]) << 8);
}

float activate(Activation act, float t) {
  float x = 0;
  switch (act) {
    case Activation::none: return t;
    case Activation::relu: return max_num(0.0f, t);
    case Activation::silu: x = kMinusLog2e * t; break;
    case Activation::gelu: {
      float s = t * t;
      s = kGeluC1 * s;
      s = kGeluC0 + s;
      const float u = t * s;
      x = kMinus2Log2e * u;
      break;
    }
  }
  return t * gfx950::rcp_f32(1.0f + gfx950::exp2_f32(x));
}

}  // namespace

std::vector<float> reference_epilogue(const std::vector<float>& acc, int64_t m, int64_t n, const Epilogue& e,
                                      float alpha, float beta, std::span<const uint8_t> c,
                                      std::span<const uint8_t> bias, int64_t ldc_in) {
  const int64_t ld = ldc_in ? ldc_in : n;
  const auto bytes_of = [](DataType t) { return element_bits(t) / 8; };
  if (acc.size() != size_t(m * n)) throw Error("reference_epilogue: acc is not M x N");
  if (e.c && c.size() < size_t(((m - 1) * ld + n) * bytes_of(*e.c)))
    throw Error(fmt::format("reference_epilogue: C holds {} bytes, {}x{} {} with ld {} needs more", c.size(), m, n,
                            to_string(*e.c), ld));
  const int64_t bias_len = e.bias == BiasDim::m ? m : e.bias == BiasDim::n ? n : 0;
  if (bias.size() < size_t(bias_len * bytes_of(e.bias_type)))
    throw Error(fmt::format("reference_epilogue: bias holds {} bytes, {} elements of {} expected", bias.size(), bias_len,
                            to_string(e.bias_type)));
  std::vector<float> d(acc.size());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float t = alpha * acc[size_t(i * n + j)];
      if (e.c) t = std::fma(beta, element(*e.c, c, size_t(i * ld + j)), t);
      if (e.bias == BiasDim::n) t = t + element(e.bias_type, bias, size_t(j));
      if (e.bias == BiasDim::m) t = t + element(e.bias_type, bias, size_t(i));
      d[size_t(i * n + j)] = activate(e.activation, t);
    }
  return d;
}

}  // namespace cdna4
