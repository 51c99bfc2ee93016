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

TEST_CASE("run_gemm_batched: every matrix of the batch is bit-exact", "[gemm][batch]") {
  Device device = Device::emulator();
  for (const char* file : {"baseline_256x256x64_w8.json", "baseline_fp8xfp4_256x256x128_w8.json",
                           "baseline_mxfp4_256x256x128_w8.json"}) {
    const Schedule s = load_schedule(schedule_test::schedules_dir() + file);
    const int64_t batch = 3, m = 130, n = 70, k = s.scaled ? 160 : 96;  // ragged M, N; a partial K tile
    const auto a = test::typed_matrix(s.type_a, size_t(batch * m * k), false, 5);
    const auto b = test::typed_matrix(s.type_b, size_t(batch * k * n), false, 6);
    const auto sa = s.scaled ? test::scale_bytes(size_t(batch * m * (k / 32)), false, 7) : std::vector<uint8_t>{};
    const auto sb = s.scaled ? test::scale_bytes(size_t(batch * (k / 32) * n), false, 8) : std::vector<uint8_t>{};
    const GemmRun run = run_gemm_batched(device, s, batch, m, n, k, a, b, OutType::bf16, {}, {}, sa, sb);
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

TEST_CASE("batched kernel with strides and leading dimensions past the packed ones writes only its C", "[gemm][batch]") {
  const Schedule s = load_schedule(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json");
  GemmShape shape = test::shape(100, 40, 64);
  shape.batch = 2;
  shape.lda = 72;             // A rows 72 apart
  shape.stride_a = 100 * 72 + 8;
  shape.ldb = 64;             // the kernel's B is N x K
  shape.stride_b = 40 * 64 + 16;
  shape.ldc = 45;             // 5 guard elements after every C row
  shape.stride_c = 100 * 45 + 7;
  const GemmKernel kernel = compile(s, shape);
  CHECK(kernel.grid.z == 2);

  const size_t a_elems = size_t(shape.stride_a * 2), b_elems = size_t(shape.stride_b * 2);
  const auto a = test::random_matrix(a_elems, 1), bt = test::random_matrix(b_elems, 2);
  constexpr uint32_t kGuard = 0xdeadbeef;
  const size_t guard = 64;  // elements before the first and after the last C matrix
  const size_t c_elems = size_t(shape.stride_c * 2) + 2 * guard;
  std::vector<uint32_t> c_init(c_elems, kGuard);

  Device device = Device::emulator();
  Buffer da = device.alloc(a_elems * 2), db = device.alloc(b_elems * 2), dc = device.alloc(c_elems * 4);
  da.upload(a);
  db.upload(bt);
  dc.upload(c_init);
  // The kernel's C starts `guard` elements into the buffer.
  const LaunchStats stats =
      device.launch(kernel.kernel, kernel.grid, kernel.block, {da, db, Arg::pointer(dc.address() + guard * 4)});
  CHECK(stats.races.empty());
  const auto c = dc.download<uint32_t>();

  for (int64_t z = 0; z < shape.batch; ++z) {
    std::vector<uint16_t> az(size_t(shape.m * shape.k)), bz(size_t(shape.k * shape.n));
    for (int64_t i = 0; i < shape.m; ++i)
      for (int64_t x = 0; x < shape.k; ++x) az[size_t(i * shape.k + x)] = a[size_t(z * shape.stride_a + i * shape.lda + x)];
    for (int64_t j = 0; j < shape.n; ++j)
      for (int64_t x = 0; x < shape.k; ++x) bz[size_t(x * shape.n + j)] = bt[size_t(z * shape.stride_b + j * shape.ldb + x)];
    const std::vector<float> ref = reference_gemm(az, bz, shape.m, shape.n, shape.k);
    size_t wrong = 0;
    for (int64_t i = 0; i < shape.m; ++i)
      for (int64_t j = 0; j < shape.n; ++j) {
        uint32_t bits;
        std::memcpy(&bits, &ref[size_t(i * shape.n + j)], 4);
        wrong += c[guard + size_t(z * shape.stride_c + i * shape.ldc + j)] != bits;
      }
    INFO(fmt::format("matrix {}", z));
    CHECK(wrong == 0);
  }
  // Every element outside the batch's M x N matrices keeps its guard value.
  std::vector<bool> inside(c_elems, false);
  for (int64_t z = 0; z < shape.batch; ++z)
    for (int64_t i = 0; i < shape.m; ++i)
      for (int64_t j = 0; j < shape.n; ++j) inside[guard + size_t(z * shape.stride_c + i * shape.ldc + j)] = true;
  size_t touched = 0;
  for (size_t e = 0; e < c_elems; ++e) touched += !inside[e] && c[e] != kGuard;
  CHECK(touched == 0);
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
  CHECK_THAT(error_of([&] { run_gemm_batched(device, s, 2, 16, 16, 16, std::vector<uint8_t>(16 * 16 * 2), std::vector<uint8_t>(2 * 16 * 16 * 2), OutType::f32); }),
             Catch::Contains("A has 256 elements (512 bytes of bf16), M*K*batch = 512"));
}
