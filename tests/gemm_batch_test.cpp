// Strided batched GEMM in one launch (the grid's z runs over the batch): every
// matrix bit-exact against the reference of its own A and B (one fp32 FMA chain
// per element in k order, the emulator's MFMA policy), and nothing written
// between or around the C matrices.
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>

#include <fmt/format.h>

#include "cdna4/gemm.hpp"
#include "cdna4/reference.hpp"
#include "gemm_support.hpp"
#include "schedule_test_support.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using cdna4::test::error_of;

namespace {

template <typename T>
std::vector<T> slice(const std::vector<T>& v, size_t first, size_t count) {
  return std::vector<T>(v.begin() + std::ptrdiff_t(first), v.begin() + std::ptrdiff_t(first + count));
}

}  // namespace

TEST_CASE("run_gemm on a batch: every matrix of the batch is bit-exact", "[gemm][batch]") {
  Device device = Device::emulator();
  for (const char* file : {"baseline_256x256x64_w8.json", "baseline_fp8xfp4_256x256x128_w8.json",
                           "baseline_mxfp4_256x256x128_w8.json"}) {
    const Schedule s = load_schedule(schedule_test::schedules_dir() + file);
    const int64_t batch = 3, m = 130, n = 70, k = s.scaled ? 160 : 96;  // ragged M, N; a partial K tile
    const auto a = test::typed_matrix(s.type_a, size_t(batch * m * k), false, 5);
    const auto b = test::typed_matrix(s.type_b, size_t(batch * k * n), false, 6);
    const auto sa = s.scaled ? test::scale_bytes(size_t(batch * m * (k / 32)), false, 7) : std::vector<uint8_t>{};
    const auto sb = s.scaled ? test::scale_bytes(size_t(batch * (k / 32) * n), false, 8) : std::vector<uint8_t>{};
    GemmProblem problem = test::problem(m, n, k, a, b, OutType::bf16);
    problem.shape.batch = batch;
    problem.scale_a = sa;
    problem.scale_b = sb;
    const GemmRun run = run_gemm(device, s, problem);
    CHECK(run.launch.races.empty());
    REQUIRE(run.c.size() == size_t(batch * m * n * 2));
    const size_t a_bytes = packed_bytes(s.type_a, m * k), b_bytes = packed_bytes(s.type_b, k * n);
    for (int64_t z = 0; z < batch; ++z) {
      INFO(fmt::format("{}, matrix {} of {}", s.name, z, batch));
      const auto sa_z = s.scaled ? slice(sa, size_t(z * m * (k / 32)), size_t(m * (k / 32))) : std::vector<uint8_t>{};
      const auto sb_z = s.scaled ? slice(sb, size_t(z * (k / 32) * n), size_t((k / 32) * n)) : std::vector<uint8_t>{};
      const auto expected = to_output_bits(
          reference_gemm(s.type_a, slice(a, size_t(z) * a_bytes, a_bytes), s.type_b, slice(b, size_t(z) * b_bytes, b_bytes),
                         m, n, k, sa_z, sb_z),
          DataType::bf16);
      CHECK(differing_elements(slice(run.c, size_t(z * m * n * 2), size_t(m * n * 2)), expected, 2) == 0);
    }
  }
}

namespace {

// Runs the batched kernel for `shape` (B as N x K) with guard bytes before,
// between, around and after the C matrices; every C element must be the
// reference's bits and every other byte keep its guard value.
void check_writes_only_c(const GemmShape& shape, bool expect_row_stores) {
  const Schedule s = load_schedule(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json");
  CompileOptions options;
  options.keep_assembly = true;
  const GemmKernel kernel = compile(s, shape, options);
  CHECK(kernel.grid.z == uint32_t(shape.batch));
  // Where D's rows are whole 16-byte units, it leaves as 16-byte row pieces.
  CHECK((kernel.assembly.find("buffer_store_dwordx4") != std::string::npos) == expect_row_stores);

  const size_t a_elems = size_t(shape.stride_a * shape.batch), b_elems = size_t(shape.stride_b * shape.batch);
  const auto a = test::random_matrix(a_elems, 1), bt = test::random_matrix(b_elems, 2);
  constexpr uint8_t kGuard = 0xa5;
  const size_t elem = size_t(element_bytes(*shape.out)), guard = 64 * elem;  // bytes before and after
  const size_t c_bytes = size_t(shape.stride_c * shape.batch) * elem + 2 * guard;
  const std::vector<uint8_t> c_init(c_bytes, kGuard);

  Device device = Device::emulator();
  Buffer da = device.alloc(a_elems * 2), db = device.alloc(b_elems * 2), dc = device.alloc(c_bytes);
  da.upload(a);
  db.upload(bt);
  dc.upload(c_init);
  // The kernel's C starts `guard` bytes into the buffer.
  const LaunchStats stats =
      device.launch(kernel.kernel, kernel.grid, kernel.block, {da, db, Arg::pointer(dc.address() + guard)});
  CHECK(stats.races.empty());
  const auto c = dc.download<uint8_t>();

  std::vector<bool> inside(c_bytes, false);
  for (int64_t z = 0; z < shape.batch; ++z) {
    std::vector<uint16_t> az(size_t(shape.m * shape.k)), bz(size_t(shape.k * shape.n));
    for (int64_t i = 0; i < shape.m; ++i)
      for (int64_t x = 0; x < shape.k; ++x) az[size_t(i * shape.k + x)] = a[size_t(z * shape.stride_a + i * shape.lda + x)];
    for (int64_t j = 0; j < shape.n; ++j)
      for (int64_t x = 0; x < shape.k; ++x) bz[size_t(x * shape.n + j)] = bt[size_t(z * shape.stride_b + j * shape.ldb + x)];
    const std::vector<uint8_t> ref = to_output_bits(reference_gemm(az, bz, shape.m, shape.n, shape.k),
                                                    data_type(*shape.out));
    size_t wrong = 0;
    for (int64_t i = 0; i < shape.m; ++i)
      for (int64_t j = 0; j < shape.n; ++j) {
        const size_t at = guard + size_t(z * shape.stride_c + i * shape.ldc + j) * elem;
        wrong += std::memcmp(&c[at], &ref[size_t(i * shape.n + j) * elem], elem) != 0;
        for (size_t b = 0; b < elem; ++b) inside[at + b] = true;
      }
    INFO(fmt::format("matrix {}", z));
    CHECK(wrong == 0);
  }
  // Every byte outside the batch's M x N matrices keeps its guard value.
  size_t touched = 0;
  for (size_t e = 0; e < c_bytes; ++e) touched += !inside[e] && c[e] != kGuard;
  CHECK(touched == 0);
}

GemmShape strided_shape(OutType out, int64_t ldc, int64_t stride_c_extra) {
  GemmShape shape = test::shape(100, 40, 64);
  shape.out = out;
  shape.batch = 2;
  shape.lda = 72;             // A rows 72 apart
  shape.stride_a = 100 * 72 + 8;
  shape.ldb = 64;             // the kernel's B is N x K
  shape.stride_b = 40 * 64 + 16;
  shape.ldc = ldc;            // guard elements after every C row
  shape.stride_c = 100 * ldc + stride_c_extra;
  return shape;
}

}  // namespace

TEST_CASE("batched kernel with strides and leading dimensions past the packed ones writes only its C", "[gemm][batch]") {
  SECTION("rows off 16 bytes: element stores") { check_writes_only_c(strided_shape(OutType::f32, 45, 7), false); }
  SECTION("rows of whole 16-byte units: f32 row pieces") { check_writes_only_c(strided_shape(OutType::f32, 48, 4), true); }
  SECTION("rows of whole 16-byte units: bf16 row pieces") { check_writes_only_c(strided_shape(OutType::bf16, 56, 8), true); }
  SECTION("a batch stride off 16 bytes: element stores") { check_writes_only_c(strided_shape(OutType::bf16, 56, 4), false); }
}

TEST_CASE("batch shapes the kernel cannot take are refused with the reason", "[gemm][batch]") {
  const Schedule s = load_schedule(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json");
  GemmShape shape = test::shape(64, 64, 64);
  shape.batch = 0;
  CHECK_THAT(error_of([&] { compile(s, shape); }), Catch::Contains("batch must be at least 1, got 0"));
  shape.batch = 4;
  shape.stride_c = 64 * 64 - 1;
  CHECK_THAT(error_of([&] { compile(s, shape); }),
             Catch::Contains("stride_c 4095 is smaller than one C matrix (4096 elements): the batch's stores would overlap"));
  shape.stride_c = 0;
  shape.stride_a = 64 * 64 + 4;
  CHECK_THAT(error_of([&] { compile(s, shape); }),
             Catch::Contains("stride_a must be a multiple of 8 and stride_b of 8 elements"));
  shape.stride_a = int64_t(1) << 31;  // 4 GiB of bf16
  CHECK_THAT(error_of([&] { compile(s, shape); }), Catch::Contains("each stride must stay below 4 GiB"));
  shape.stride_a = -8;
  CHECK_THAT(error_of([&] { compile(s, shape); }), Catch::Contains("strides must not be negative"));
  Device device = Device::emulator();
  const std::vector<uint8_t> one_a(16 * 16 * 2), two_b(2 * 16 * 16 * 2);
  GemmProblem problem = test::problem(16, 16, 16, one_a, two_b, OutType::f32);
  problem.shape.batch = 2;
  CHECK_THAT(error_of([&] { run_gemm(device, s, problem); }),
             Catch::Contains("A has 256 elements (512 bytes of bf16), M*K*batch = 512"));
}
