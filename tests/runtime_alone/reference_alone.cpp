// The CPU reference with the runtime library alone: built against every object
// of cdna4_runtime and nothing of the code generator (the "runtime: ... alone"
// test), so a runtime that needs a code-generator symbol again fails to link.
#include <cstdio>
#include <cstring>
#include <vector>

#include "cdna4/reference.hpp"

using namespace cdna4;

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++failures;
  }
}

}  // namespace

int main() {
  check(decode_element(DataType::fp8, encode_element(DataType::fp8, 1.5f)) == 1.5f, "fp8 1.5 round-trips");
  check(parse<Layout>("tn") == Layout::tn && std::strcmp(to_string(Layout::tn), "tn") == 0, "layout names");

  // A (2 x 32) of fp8 1.0 stored "t" (K x M), B (32 x 2) of fp8 2.0: every element of C is 64.
  const int64_t m = 2, n = 2, k = 32;
  const std::vector<uint32_t> ones(size_t(m * k), encode_element(DataType::fp8, 1.0f));
  const std::vector<uint32_t> twos(size_t(k * n), encode_element(DataType::fp8, 2.0f));
  const std::vector<uint8_t> a_km = pack_elements(DataType::fp8, ones), b = pack_elements(DataType::fp8, twos);
  const std::vector<uint8_t> a = reference_operand(DataType::fp8, a_km, Layout::tn, Operand::a, m, k, m);
  const std::vector<float> c = reference_gemm(DataType::fp8, a, DataType::fp8, b, m, n, k);
  check(c == std::vector<float>(4, 64.0f), "fp8 reference GEMM");
  const std::vector<uint16_t> a16(size_t(m * k), 0x3f80), b16(size_t(k * n), 0x4000);  // bf16 1.0 and 2.0
  check(reference_gemm(a16, b16, m, n, k) == c, "bf16 reference GEMM");

  // relu(-1 * C + bias[j]) with bias {10, 100}: 0 and 36 in each row.
  Epilogue e;
  e.bias = BiasDim::n;
  e.activation = Activation::relu;
  const float bias[] = {10.0f, 100.0f};
  std::vector<uint8_t> bias_bytes(sizeof bias);
  std::memcpy(bias_bytes.data(), bias, sizeof bias);
  const std::vector<float> d = reference_epilogue(c, m, n, e, -1.0f, 0.0f, {}, bias_bytes);
  check(d == std::vector<float>({0.0f, 36.0f, 0.0f, 36.0f}), "reference epilogue");

  std::printf("CPU reference with the runtime library alone: %s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
