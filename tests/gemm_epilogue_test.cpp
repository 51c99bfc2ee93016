// Fused epilogue D = act(alpha * (A x B) + beta * C + bias): bit for bit against
// reference_epilogue (whose arithmetic reference.hpp states: operation order,
// one FMA for beta * C, exp2 / rcp as the emulator computes v_exp_f32 /
// v_rcp_f32) applied to reference_gemm's product; C aliasing D; guard bytes;
// the transcendental activations within a bound of double precision.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include <fmt/format.h>

#include "cdna4/gemm.hpp"
#include "cdna4/reference.hpp"
#include "common/activations.hpp"
#include "gemm_support.hpp"
#include "schedule_test_support.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using cdna4::test::error_of;

namespace {

// `count` normal values (scaled) rounded into `type` (f32, bf16, f16), packed.
std::vector<uint8_t> values_of(DataType type, size_t count, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<uint8_t> out(count * (type == DataType::f32 ? 4 : 2));
  for (size_t i = 0; i < count; ++i) {
    const float x = normal(rng);
    if (type == DataType::f32) {
      std::memcpy(&out[4 * i], &x, 4);
    } else {
      const uint32_t bits = encode_element(type, x);
      out[2 * i] = uint8_t(bits);
      out[2 * i + 1] = uint8_t(bits >> 8);
    }
  }
  return out;
}

struct Case {
  std::optional<DataType> c;
  BiasDim bias;
  DataType bias_type;
  Activation act;
  OutType out;
};

}  // namespace

TEST_CASE("fused epilogues are bit-exact against the stated reference", "[gemm][epilogue]") {
  const Schedule base = load_schedule(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json");
  const Case cases[] = {
      {std::nullopt, BiasDim::none, DataType::f32, Activation::none, OutType::f32},  // alpha only
      {DataType::f32, BiasDim::n, DataType::f32, Activation::relu, OutType::f32},
      {DataType::bf16, BiasDim::m, DataType::bf16, Activation::gelu, OutType::bf16},
      {DataType::f16, BiasDim::n, DataType::bf16, Activation::silu, OutType::f16},
      {DataType::f32, BiasDim::none, DataType::f32, Activation::gelu, OutType::bf16},
      {std::nullopt, BiasDim::m, DataType::f32, Activation::silu, OutType::f32},
      {DataType::bf16, BiasDim::none, DataType::f32, Activation::relu, OutType::f16},
      // tanh: x = fma(2, rcp(1 + exp2(-2 log2 e * x)), -1), each step rounded in fp32
      {DataType::f32, BiasDim::m, DataType::bf16, Activation::tanh, OutType::f32},
  };
  for (const activations::Row& row : activations::kRows) {
    INFO(row.name << " has a case");
    CHECK(std::any_of(std::begin(cases), std::end(cases), [&](const Case& cs) { return cs.act == row.value; }));
  }
  const int64_t m = 257, n = 130, k = 96;  // ragged M and N: masked rows and columns
  const auto a = test::random_matrix(size_t(m * k), 3), b = test::random_matrix(size_t(k * n), 4);
  const std::vector<float> product = reference_gemm(a, b, m, n, k);
  std::vector<uint8_t> a_bytes(a.size() * 2), b_bytes(b.size() * 2);
  std::memcpy(a_bytes.data(), a.data(), a_bytes.size());
  std::memcpy(b_bytes.data(), b.data(), b_bytes.size());
  Device device = Device::emulator();
  int index = 0;
  for (const Case& cs : cases) {
    Epilogue e;
    e.c = cs.c;
    e.bias = cs.bias;
    e.bias_type = cs.bias_type;
    e.activation = cs.act;
    GemmProblem data = test::problem(m, n, k, a_bytes, b_bytes, cs.out);
    data.alpha = 0.75f;
    data.beta = -1.5f;
    const auto c_in = e.c ? values_of(*e.c, size_t(m * n), 10 + index, 4.0f) : std::vector<uint8_t>{};
    const int64_t bias_len = e.bias == BiasDim::m ? m : e.bias == BiasDim::n ? n : 0;
    const auto bias = values_of(e.bias_type, size_t(bias_len), 20 + index, 2.0f);
    data.c = c_in;
    data.bias = bias;
    CompileOptions options;
    options.epilogue = e;
    INFO(fmt::format("case {}: C {}, bias {} {}, {}, out {}", index, e.c ? to_string(*e.c) : "none", int(e.bias),
                     to_string(e.bias_type), to_string(e.activation), to_string(cs.out)));
    const GemmRun run = run_gemm(device, base, data, options);
    CHECK(run.launch.races.empty());
    const auto expected = to_output_bits(
        reference_epilogue(product, m, n, e, data.alpha, data.beta, data.c, data.bias), data_type(cs.out));
    CHECK(differing_elements(run.c, expected, size_t(element_bytes(cs.out))) == 0);
    ++index;
  }
}

TEST_CASE("the epilogue in the schedule, C aliasing D, and nothing written outside D", "[gemm][epilogue]") {
  auto s = load_schedule(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json");
  s.epilogue = Epilogue{DataType::f32, BiasDim::n, DataType::f32, Activation::relu};
  GemmShape shape = test::shape(100, 40, 64);
  shape.ldc = 48;  // 8 guard elements after every row of D (and of C, the same memory)
  const GemmKernel kernel = compile(s, shape);
  const auto a = test::random_matrix(size_t(100 * 64), 5), bt = test::random_matrix(size_t(40 * 64), 6);
  constexpr size_t guard = 64;
  const size_t d_elems = size_t(99 * 48 + 40);
  std::vector<float> d0(d_elems + 2 * guard);
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (auto& x : d0) x = normal(rng);
  std::vector<float> bias(40);
  for (auto& x : bias) x = normal(rng);
  Device device = Device::emulator();
  Buffer da = device.alloc(a.size() * 2), db = device.alloc(bt.size() * 2), dd = device.alloc(d0.size() * 4),
         dbias = device.alloc(bias.size() * 4);
  da.upload(a);
  db.upload(bt);
  dd.upload(d0);
  dbias.upload(bias);
  const Arg d_arg = Arg::pointer(dd.address() + guard * 4);
  const float alpha = 2.0f, beta = 0.5f;
  const LaunchStats stats = device.launch(kernel.kernel, kernel.grid, kernel.block, {da, db, d_arg, d_arg, dbias, alpha, beta});
  CHECK(stats.races.empty());
  const auto d = dd.download<float>();

  std::vector<uint16_t> b_kn(size_t(64 * 40));
  for (int j = 0; j < 40; ++j)
    for (int x = 0; x < 64; ++x) b_kn[size_t(x * 40 + j)] = bt[size_t(j * 64 + x)];
  std::vector<uint8_t> c_bytes(d_elems * 4), bias_bytes(bias.size() * 4);
  std::memcpy(c_bytes.data(), d0.data() + guard, c_bytes.size());
  std::memcpy(bias_bytes.data(), bias.data(), bias_bytes.size());
  const auto expected = reference_epilogue(reference_gemm(a, b_kn, 100, 40, 64), 100, 40, *s.epilogue, alpha, beta,
                                           c_bytes, bias_bytes, 48);
  size_t wrong = 0, touched = 0;
  for (size_t e = 0; e < d.size(); ++e) {
    const bool inside = e >= guard && e < guard + d_elems && (e - guard) % 48 < 40;
    if (inside) {
      const size_t i = (e - guard) / 48, j = (e - guard) % 48;
      wrong += std::memcmp(&d[e], &expected[i * 40 + j], 4) != 0;
    } else {
      touched += std::memcmp(&d[e], &d0[e], 4) != 0;
    }
  }
  CHECK(wrong == 0);
  CHECK(touched == 0);
}

TEST_CASE("gelu and silu stay within a few ulps of double precision", "[gemm][epilogue]") {
  // One K step of integers: every product is exact, so the only rounding is the
  // activation's. The bound is what v_exp_f32 / v_rcp_f32 rounding propagates
  // through the formulas on |x| <= 9 (measured: gelu 2.1, silu 1.7 ulps).
  const Schedule s = load_schedule(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json");
  const int64_t m = 64, n = 64, k = 8;
  const auto a = test::integer_matrix(size_t(m * k), 8, 3), b = test::integer_matrix(size_t(k * n), 9, 1);
  std::vector<uint8_t> a_bytes(a.size() * 2), b_bytes(b.size() * 2);
  std::memcpy(a_bytes.data(), a.data(), a_bytes.size());
  std::memcpy(b_bytes.data(), b.data(), b_bytes.size());
  const std::vector<float> product = reference_gemm(a, b, m, n, k);
  Device device = Device::emulator();
  for (Activation act : {Activation::gelu, Activation::silu}) {
    CompileOptions options;
    options.epilogue = Epilogue{std::nullopt, BiasDim::none, DataType::f32, act};
    GemmProblem data = test::problem(m, n, k, a_bytes, b_bytes, OutType::f32);
    data.alpha = 0.125f;  // |x| up to about 9
    const GemmRun run = run_gemm(device, s, data, options);
    double worst = 0;
    for (size_t i = 0; i < product.size(); ++i) {
      const double x = double(0.125f * product[i]);
      const double exact = act == Activation::silu ? x / (1 + std::exp(-x))
                                                   : 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
      float got;
      std::memcpy(&got, &run.c[4 * i], 4);
      const double ulp = std::max(std::abs(double(std::nextafter(float(exact), INFINITY)) - double(float(exact))), 1e-45);
      worst = std::max(worst, std::abs(double(got) - exact) / ulp);
    }
    INFO(fmt::format("{}: worst {:.1f} ulps", to_string(act), worst));
    CHECK(worst <= 4.0);
    CHECK(worst > 0.0);  // a bound that can fail: the fp32 path is not exact
  }
}

TEST_CASE("tanh: the reference within 2^-22 of std::tanh, and its infinities, NaN and zeros", "[gemm][epilogue]") {
  // x = 2 / (1 + 2^(-2 log2 e * x)) - 1 in fp32 steps: the error is absolute
  // (2t - 1 cancels near 0), 1.9e-7 at worst over every fp32 x, and 3.2 ulps
  // where |tanh| >= 0.5.
  std::vector<float> xs;
  for (int i = -40000; i <= 40000; ++i) xs.push_back(float(i) * 5e-4f);  // -20 .. 20
  for (float big : {9.02f, 30.0f, 88.0f, 1e4f, 1e30f, 3.4e38f}) xs.insert(xs.end(), {big, -big});
  for (float tiny : {1e-4f, 1e-8f, 1e-30f, 1e-45f}) xs.insert(xs.end(), {tiny, -tiny});
  const size_t finite = xs.size();
  xs.insert(xs.end(), {0.0f, -0.0f, INFINITY, -INFINITY, NAN});
  const Epilogue e{std::nullopt, BiasDim::none, DataType::f32, Activation::tanh};
  const std::vector<float> got = reference_epilogue(xs, 1, int64_t(xs.size()), e, 1.0f, 0.0f, {}, {});
  double worst_abs = 0, worst_ulps = 0;
  for (size_t i = 0; i < finite; ++i) {
    const double exact = std::tanh(double(xs[i]));
    const double error = std::abs(double(got[i]) - exact);
    worst_abs = std::max(worst_abs, error);
    if (std::abs(exact) >= 0.5) {
      worst_ulps = std::max(worst_ulps, error / std::ldexp(1.0, std::ilogb(std::abs(exact)) - 23));
    }
    if (std::abs(xs[i]) >= 9.02f) CHECK(got[i] == std::copysign(1.0f, xs[i]));
    if (std::abs(xs[i]) <= 1e-8f) CHECK(got[i] == 0.0f);  // 2^(-2 log2 e * x) rounds to 1
  }
  INFO(fmt::format("worst {:.3g} absolute, {:.2f} ulps where |tanh| >= 0.5", worst_abs, worst_ulps));
  CHECK(worst_abs <= std::ldexp(1.0, -22));
  CHECK(worst_abs > 0.0);  // a bound that can fail: the fp32 steps are not exact
  CHECK(worst_ulps <= 4.0);
  const float* special = &got[finite];
  CHECK(std::bit_cast<uint32_t>(special[0]) == 0u);  // +0
  CHECK(std::bit_cast<uint32_t>(special[1]) == 0u);  // -0 gives +0
  CHECK(special[2] == 1.0f);
  CHECK(special[3] == -1.0f);
  CHECK(std::isnan(special[4]));
}

TEST_CASE("epilogue data that does not fit the epilogue is refused", "[gemm][epilogue]") {
  const Schedule s = load_schedule(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json");
  Device device = Device::emulator();
  const std::vector<uint8_t> a(16 * 16 * 2), b(16 * 16 * 2);
  GemmProblem data = test::problem(16, 16, 16, a, b, OutType::f32);
  std::vector<uint8_t> c_in(10);
  data.c = c_in;
  CHECK_THAT(error_of([&] { run_gemm(device, s, data); }),
             Catch::Contains("has no fused epilogue: C and bias data need one"));
  CompileOptions options;
  options.epilogue = Epilogue{DataType::bf16, BiasDim::m, DataType::f32, Activation::none};
  CHECK_THAT(error_of([&] { run_gemm(device, s, data, options); }),
             Catch::Contains("the epilogue's C holds 10 bytes; 512 expected (M x N bf16)"));
  c_in.resize(512);
  data.c = c_in;
  CHECK_THAT(error_of([&] { run_gemm(device, s, data, options); }),
             Catch::Contains("the bias holds 0 bytes; 64 expected (16 f32 elements)"));
}

TEST_CASE("epilogue kernels: streamed instructions give the text path's bytes", "[gemm][epilogue][assembler]") {
  auto s = load_schedule(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json");
  for (const activations::Row& row : activations::kRows) {
    const Activation act = row.value;
    if (act == Activation::none) continue;
    s.epilogue = Epilogue{DataType::f16, BiasDim::m, DataType::bf16, act};
    CompileOptions options;
    options.use_cache = false;
    const GemmKernel fast = compile(s, test::shape(300, 200, 64), options);
    options.text_assembly = true;
    const GemmKernel slow = compile(s, test::shape(300, 200, 64), options);
    INFO(to_string(act));
    CHECK(fast.kernel.hsaco() == slow.kernel.hsaco());
    // Every step's instruction is emitted.
    static constexpr const char* kMnemonics[] = {"v_mul_f32", "v_add_f32", "v_fma_f32", "v_max_f32", "v_exp_f32", "v_rcp_f32"};
    for (const activations::Step& st : row.steps)
      CHECK(slow.assembly.find(kMnemonics[int(st.op)]) != std::string::npos);
    // The rcp result (read by the next step in every row) waits one state before a VALU reads it.
    if (std::none_of(row.steps.begin(), row.steps.end(),
                     [](const activations::Step& st) { return st.op == activations::Op::rcp; }))
      continue;
    const size_t rcp = slow.assembly.find("v_rcp_f32");
    REQUIRE(rcp != std::string::npos);
    const size_t next_line = slow.assembly.find('\n', rcp) + 1;
    CHECK(slow.assembly.compare(next_line, 8, "\ts_nop 0") == 0);
  }
}
