// Foreign code using the memory features real kernels need: clang-22 output for
// a split-K float-atomic reduction and for flat stores through src_shared_base.
#include <catch2/catch.hpp>

#include "cdna4/runtime.hpp"
#include "foreign/hip_build.hpp"

using namespace cdna4;

TEST_CASE("foreign: clang-22 split-K with global_atomic_add_f32 loses no update across concurrent workgroups",
          "[emulator][atomic][foreign]") {
  Kernel kernel = Kernel::from_hsaco(test::compile_foreign_hip("splitk_atomic"), "splitk_atomic");
  EmulatorConfig config;
  config.threads = 4;
  Device dev = Device::emulator(config);
  const int n = 300, k = 64, kslice = 4, slices = k / kslice;
  std::vector<float> a(k), b(size_t(k) * n);
  for (int p = 0; p < k; ++p) a[p] = float(p % 5 - 2);
  for (size_t j = 0; j < b.size(); ++j) b[j] = float(int(j % 7) - 3);  // every partial sum is exact in fp32
  Buffer da = dev.alloc(a.size() * 4), db = dev.alloc(b.size() * 4), dc = dev.alloc(n * 4);
  da.upload(a);
  db.upload(b);
  for (uint64_t seed : {1, 2}) {
    dc.fill_zero();
    LaunchOptions options;
    options.seed = seed;
    dev.launch(kernel, {(n + 63) / 64, slices}, {64}, {da, db, dc, n, k, kslice}, options);
    auto c = dc.download<float>();
    for (int i = 0; i < n; ++i) {
      float want = 0;
      for (int p = 0; p < k; ++p) want += a[p] * b[size_t(p) * n + i];
      REQUIRE(c[i] == want);
    }
  }
}

TEST_CASE("foreign: clang-22 flat stores through src_shared_base reach LDS, others global memory",
          "[emulator][flat][foreign]") {
  Kernel kernel = Kernel::from_hsaco(test::compile_foreign_hip("splitk_atomic"), "flat_mix");
  Device dev = Device::emulator();
  Buffer out = dev.alloc(512 * 4);
  for (int sel : {0, 1}) {
    out.fill_zero();
    dev.launch(kernel, {1}, {256}, {out, sel});
    auto o = out.download<float>();
    for (int t = 0; t < 256; ++t) {
      INFO("sel " << sel << " thread " << t);
      bool to_lds = (t & sel) != 0;
      CHECK(o[t] == (to_lds ? 0.0f : 2.0f * t));
      int u = t ^ 1;
      CHECK(o[256 + t] == ((u & sel) ? 2.0f * u : -1.0f));
    }
  }
}
