// Foreign code: kernels compiled by clang-22 from HIP run on the emulator
// through the public runtime API, hidden kernel arguments included.
#include <catch2/catch.hpp>

#include <random>

#include "cdna4/runtime.hpp"
#include "foreign/hip_build.hpp"

using namespace cdna4;

namespace {

// Runs a launch; an instruction the emulator does not support fails the test
// with the emulator's message, which names the instruction and its address.
LaunchStats run_foreign(Device& dev, const Kernel& kernel, Dim3 grid, Dim3 block, const std::vector<Arg>& args,
                        const LaunchOptions& options = {}) {
  try {
    return dev.launch(kernel, grid, block, args, options);
  } catch (const RaceError&) {
    throw;
  } catch (const Error& e) {
    FAIL("the emulator stopped on " << kernel.name() << ": " << e.what());
  }
  return {};
}

std::vector<float> random_floats(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> small(-8, 8);  // sums stay exact in fp32
  std::vector<float> v(n);
  for (float& x : v) x = float(small(rng));
  return v;
}

// C = A * B in fp32, the loop order the HIP kernels use (k innermost, adds in k order).
std::vector<float> naive_gemm(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k) {
  std::vector<float> c(size_t(m) * n, 0.0f);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k; ++p) c[i * n + j] += a[i * k + p] * b[p * n + j];
  return c;
}

}  // namespace

TEST_CASE("foreign: clang-22 HIP vector add runs on the emulator", "[runtime]") {
  Kernel kernel = Kernel::from_hsaco(test::compile_foreign_hip("vector_add"));
  Device dev = Device::emulator();
  const int n = 1000;  // not a multiple of the block: the kernel's bounds check matters
  auto a = random_floats(n, 1), b = random_floats(n, 2);
  Buffer da = dev.alloc(n * 4), db = dev.alloc(n * 4), dc = dev.alloc(n * 4);
  da.upload(a);
  db.upload(b);
  for (uint64_t seed : {1, 2, 3}) {
    dc.fill_zero();
    LaunchOptions options;
    options.seed = seed;
    LaunchStats stats = run_foreign(dev, kernel, {(n + 255) / 256}, {256}, {da, db, dc, n}, options);
    CHECK(stats.races.empty());
    auto c = dc.download<float>();
    for (int i = 0; i < n; ++i) REQUIRE(c[i] == a[i] + b[i]);
  }
}

TEST_CASE("foreign: clang-22 HIP naive GEMM loop runs on the emulator", "[runtime]") {
  Kernel kernel = Kernel::from_hsaco(test::compile_foreign_hip("naive_gemm"));
  Device dev = Device::emulator();
  const int m = 37, n = 45, k = 19;  // ragged against the 16x16 block
  auto a = random_floats(m * k, 3), b = random_floats(k * n, 4);
  const std::vector<float> want = naive_gemm(a, b, m, n, k);
  Buffer da = dev.alloc(a.size() * 4), db = dev.alloc(b.size() * 4), dc = dev.alloc(want.size() * 4);
  da.upload(a);
  db.upload(b);
  LaunchStats stats = run_foreign(dev, kernel, {(n + 15) / 16, (m + 15) / 16}, {16, 16}, {da, db, dc, m, n, k});
  CHECK(stats.races.empty());
  CHECK(dc.download<float>() == want);
}

TEST_CASE("foreign: clang-22 HIP tiled GEMM with dynamic LDS and barriers runs on the emulator", "[runtime]") {
  Kernel kernel = Kernel::from_hsaco(test::compile_foreign_hip("tiled_gemm"));
  CHECK(kernel.info().group_segment_fixed_size == 0);  // all its LDS is requested at launch
  Device dev = Device::emulator();
  const int m = 37, n = 45, k = 19;
  auto a = random_floats(m * k, 5), b = random_floats(k * n, 6);
  const std::vector<float> want = naive_gemm(a, b, m, n, k);
  Buffer da = dev.alloc(a.size() * 4), db = dev.alloc(b.size() * 4), dc = dev.alloc(want.size() * 4);
  da.upload(a);
  db.upload(b);
  LaunchOptions options;
  options.dynamic_lds = 2 * 16 * 16 * 4;
  for (uint64_t seed : {1, 2}) {
    options.seed = seed;
    dc.fill_zero();
    LaunchStats stats = run_foreign(dev, kernel, {(n + 15) / 16, (m + 15) / 16}, {16, 16}, {da, db, dc, m, n, k},
                                    options);
    CHECK(stats.races.empty());
    CHECK(dc.download<float>() == want);
  }
}
