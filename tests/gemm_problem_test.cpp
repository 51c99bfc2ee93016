// GemmProblem: what stage() uploads, the output type (types.c unless the shape
// gives one), run_gemm on a compiled kernel, and reference() against the kernels.
#include <catch2/catch.hpp>

#include <cstring>

#include "cdna4/gemm.hpp"
#include "cdna4/reference.hpp"
#include "gemm_support.hpp"
#include "schedule_test_support.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using cdna4::test::error_of;

namespace {

Schedule shipped(const char* file) { return load_schedule(schedule_test::schedules_dir() + file); }

}  // namespace

TEST_CASE("stage() pads K, pads scales and transposes sub-byte K-major operands, and copies nothing else",
          "[gemm][problem]") {
  const Schedule bf16 = shipped("baseline_256x256x64_w8.json");
  const auto a = test::integer_matrix(40 * 20, 1), b = test::integer_matrix(20 * 24, 2);
  const StagedProblem padded = stage(bf16, test::problem(40, 24, 20, test::bytes_of(a), test::bytes_of(b)));
  CHECK(padded.problem.shape.k == 24);  // bf16's granule: 8 elements
  CHECK(padded.problem.shape.out == OutType::f32);  // the schedule's types.c
  CHECK(padded.problem.layout == Layout::nn);
  REQUIRE(padded.a.size() == 40 * 24 * 2);
  CHECK(padded.problem.a.data() == padded.a.data());
  uint16_t row0[24];
  std::memcpy(row0, padded.a.data(), sizeof row0);
  CHECK(std::equal(row0, row0 + 20, a.begin()));
  CHECK((row0[20] == 0 && row0[23] == 0));

  const auto a32 = test::integer_matrix(40 * 32, 1), b32 = test::integer_matrix(32 * 24, 2);
  const GemmProblem ready = test::problem(40, 24, 32, test::bytes_of(a32), test::bytes_of(b32));
  const StagedProblem as_is = stage(bf16, ready);
  CHECK((as_is.a.empty() && as_is.b.empty() && as_is.problem.a.data() == ready.a.data()));

  // fp6's granule is 64: K = 96 becomes 128, and each row of scales gains a 1.0 block.
  const Schedule mxfp6 = shipped("baseline_mxfp6_256x256x128_w8.json");
  const auto a6 = test::typed_matrix(mxfp6.type_a, 64 * 96, true, 3), b6 = test::typed_matrix(mxfp6.type_b, 96 * 64, true, 4);
  const auto sa = test::scale_bytes(64 * 3, false, 5), sb = test::scale_bytes(3 * 64, false, 6);
  const StagedProblem scaled = stage(mxfp6, test::scaled(test::problem(64, 64, 96, a6, b6), sa, sb));
  CHECK(scaled.problem.shape.k == 128);
  REQUIRE(scaled.scale_a.size() == 64 * 4);
  CHECK((scaled.scale_a[0] == sa[0] && scaled.scale_a[2] == sa[2] && scaled.scale_a[3] == 127));
  CHECK(scaled.scale_a[4] == sa[3]);

  // fp4 stored K-major (layout tn) is transposed to K contiguous: the kernel's layout is nt.
  const Schedule mxfp4 = shipped("baseline_mxfp4_256x256x128_w8.json");
  const auto a4 = test::typed_matrix(DataType::fp4, 64 * 64, false, 7), b4 = test::typed_matrix(DataType::fp4, 64 * 64, false, 8);
  const auto sa4 = test::scale_bytes(64 * 2, false, 9), sb4 = test::scale_bytes(2 * 64, false, 10);
  GemmProblem tn = test::scaled(test::problem(64, 64, 64, a4, b4, OutType::bf16), sa4, sb4);
  tn.layout = Layout::tn;
  const StagedProblem transposed = stage(mxfp4, tn);
  CHECK(transposed.problem.layout == Layout::nt);
  CHECK((!transposed.a.empty() && !transposed.b.empty()));
  Device device = Device::emulator();
  const GemmRun run = run_gemm(device, mxfp4, tn);
  CHECK(run.launch.races.empty());
  CHECK(differing_elements(run.c, reference(mxfp4, tn), 2) == 0);
}

TEST_CASE("a kernel writes the schedule's types.c unless the shape names an output type", "[gemm][problem]") {
  Schedule s = shipped("baseline_256x256x64_w8.json");
  s.type_c = DataType::bf16;
  CompileOptions nn;
  nn.layout = Layout::nn;
  const GemmKernel by_schedule = compile(s, test::shape(64, 64, 64), nn);
  CHECK(by_schedule.shape.out == OutType::bf16);
  GemmShape f32_shape = test::shape(64, 64, 64);
  f32_shape.out = OutType::bf16;
  Schedule f32 = shipped("baseline_256x256x64_w8.json");
  CHECK(compile(f32, f32_shape, nn).kernel.hsaco() == by_schedule.kernel.hsaco());

  Device device = Device::emulator();
  const auto a = test::integer_matrix(64 * 64, 1), b = test::integer_matrix(64 * 64, 2);
  GemmProblem p = test::problem(64, 64, 64, test::bytes_of(a), test::bytes_of(b));
  const GemmRun in_bf16 = run_gemm(device, by_schedule, p);
  CHECK(in_bf16.c.size() == 64 * 64 * 2);
  CHECK(in_bf16.c == reference(s, p));
  p.shape.out = OutType::f32;  // the override
  const GemmRun in_f32 = run_gemm(device, s, p);
  CHECK(in_f32.c.size() == 64 * 64 * 4);
  CHECK(in_f32.c == to_output_bits(reference_gemm(a, b, 64, 64, 64), DataType::f32));

  s.type_c = DataType::fp8;
  CHECK_THROWS_AS(compile(s, test::shape(64, 64, 64)), ScheduleError);
  CHECK_THAT(error_of([&] { compile(s, test::shape(64, 64, 64)); }),
             Catch::Contains("types.c: the kernel writes C in f32, bf16 or f16, not fp8"));
  CHECK_NOTHROW(compile(s, f32_shape));  // an output type given overrides types.c
}

TEST_CASE("run_gemm on a compiled kernel: a strided batch with a fused epilogue matches reference()",
          "[gemm][problem][batch][epilogue]") {
  Schedule s = shipped("baseline_256x256x64_w8.json");
  s.epilogue = Epilogue{DataType::bf16, BiasDim::n, DataType::f32, Activation::relu};
  GemmProblem p;
  p.shape = test::shape(100, 40, 64);
  p.shape.out = OutType::bf16;
  p.shape.batch = 2;
  p.shape.lda = 72;
  p.shape.stride_a = 100 * 72 + 8;
  p.shape.ldc = 48;
  p.shape.ldc_in = 56;
  p.shape.stride_c = 100 * 56 + 8;
  const auto a = test::random_matrix(size_t(p.shape.stride_a * 2), 1), b = test::random_matrix(size_t(2 * 64 * 40), 2);
  const auto c_in = test::random_matrix(size_t(p.shape.stride_c * 2), 3);
  std::vector<float> bias(40, 0.25f);
  p.a = test::bytes_of(a);
  p.b = test::bytes_of(b);
  p.c = test::bytes_of(c_in);
  p.bias = {reinterpret_cast<const uint8_t*>(bias.data()), bias.size() * 4};
  p.alpha = 0.5f;
  p.beta = -2.0f;
  const StagedProblem staged = stage(s, p);
  CHECK((staged.a.empty() && staged.b.empty()));  // as the kernel reads them
  CompileOptions options;
  options.layout = staged.problem.layout;
  const GemmKernel kernel = compile(s, staged.problem.shape, options);
  Device device = Device::emulator();
  const GemmRun run = run_gemm(device, kernel, p);
  CHECK(run.launch.races.empty());
  const std::vector<uint8_t> expected = reference(s, p);
  REQUIRE(run.c.size() == size_t(p.shape.stride_c + 99 * 48 + 40) * 2);
  CHECK(differing_elements(run.c, expected, 2) == 0);
  // The kernel checks what it was compiled for.
  GemmProblem other = p;
  other.shape.m = 96;
  CHECK_THAT(error_of([&] { run_gemm(device, kernel, other); }),
             Catch::Contains("was compiled for 100x40x64 bf16 batch 2"));
  CHECK_THAT(error_of([&] { run_gemm(device, s, p, options); }), Catch::Contains("CompileOptions::layout is set"));
  other = p;
  other.shape.lda = 50;
  CHECK_THAT(error_of([&] { run_gemm(device, kernel, other); }),
             Catch::Contains("lda = 50 is smaller than A's stored row of 64 elements (layout nn)"));
}
