// The CPU reference of the fused GEMM epilogue (the statement is in reference.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "cdna4/error.hpp"
#include "cdna4/reference.hpp"
#include "common/activations.hpp"
#include "common/float_min_max.hpp"
#include "common/nan_rules.hpp"
#include "common/transcendental.hpp"

namespace cdna4 {
namespace {

// v_max_f32 as the generated kernels run it (IEEE mode, the descriptor's default).
float max_f32(float a, float b) {
  return std::bit_cast<float>(
      gfx950::min_max_bits<gfx950::F32Bits, true>(std::bit_cast<uint32_t>(a), std::bit_cast<uint32_t>(b), true));
}

float element(DataType type, std::span<const uint8_t> bytes, size_t i) {
  if (type == DataType::f32) {
    float f;
    std::memcpy(&f, &bytes[4 * i], 4);
    return f;
  }
  return decode_element(type, uint32_t(bytes[2 * i]) | uint32_t(bytes[2 * i + 1]) << 8);
}

// The row's steps (common/activations.hpp), each one fp32 operation rounded to nearest even.
float activate(Activation act, float value) {
  const activations::Row* row = activations::find(act);
  if (!row) throw Error("reference_epilogue: unknown activation");
  float regs[3] = {value, 0.0f, 0.0f};  // x, t, u
  auto get = [&](const activations::Src& s) { return s.constant ? std::bit_cast<float>(s.bits) : regs[int(s.var)]; };
  for (const activations::Step& s : row->steps) {
    const float a = get(s.a), b = get(s.b);
    float& d = regs[int(s.d)];
    switch (s.op) {
      case activations::Op::mul: d = gfx950::mul_f32(a, b); break;
      case activations::Op::add: d = gfx950::add_f32(a, b); break;
      case activations::Op::fma: d = gfx950::fma_f32(a, b, get(s.c)); break;
      case activations::Op::max: d = max_f32(a, b); break;
      case activations::Op::exp2: d = gfx950::exp2_f32(a); break;
      case activations::Op::rcp: d = gfx950::rcp_f32(a); break;
    }
  }
  return regs[int(activations::x)];
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
      float t = gfx950::mul_f32(alpha, acc[size_t(i * n + j)]);
      if (e.c) t = gfx950::fma_f32(beta, element(*e.c, c, size_t(i * ld + j)), t);
      if (e.bias == BiasDim::n) t = gfx950::add_f32(t, element(e.bias_type, bias, size_t(j)));
      if (e.bias == BiasDim::m) t = gfx950::add_f32(t, element(e.bias_type, bias, size_t(i)));
      d[size_t(i * n + j)] = activate(e.activation, t);
    }
  return d;
}

}  // namespace cdna4
