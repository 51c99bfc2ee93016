// One-call GEMM: host-side padding of K to the kernel's granularity and the
// transpose of a K x N B into the kernel's N x K, then compile, upload, launch.
#include <cstdint>

#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "cdna4/gemm.hpp"
#include "common/checked.hpp"

namespace cdna4 {

GemmRun run_gemm(Device& device, const Schedule& schedule, int64_t m, int64_t n, int64_t k,
                 const std::vector<uint16_t>& a_mk, const std::vector<uint16_t>& b_kn, OutType out,
                 const LaunchOptions& launch, const CompileOptions& compile_options) {
  if (m < 1 || n < 1 || k < 1) throw Error(fmt::format("run_gemm: shape {}x{}x{}: M, N, K must be at least 1", m, n, k));
  const auto elements = [&](int64_t rows, int64_t cols, const char* what) {
    const auto count = checked::mul(rows, cols);
    if (!count || uint64_t(*count) > SIZE_MAX)
      throw Error(fmt::format("run_gemm: shape {}x{}x{}: {} ({} x {}) does not fit in memory sizes", m, n, k, what,
                              rows, cols));
    return size_t(*count);
  };
  if (a_mk.size() != elements(m, k, "A"))
    throw Error(fmt::format("run_gemm: A has {} elements, M*K = {}", a_mk.size(), elements(m, k, "A")));
  if (b_kn.size() != elements(k, n, "B"))
    throw Error(fmt::format("run_gemm: B has {} elements, K*N = {}", b_kn.size(), elements(k, n, "B")));
  // Zero columns up to a multiple of 8 add exact zeros to every dot product.
  const auto padded = checked::round_up<int64_t>(k, 8);
  if (!padded) throw Error(fmt::format("run_gemm: K = {} cannot be padded to a multiple of 8", k));
  const int64_t kp = *padded;

  GemmShape shape;
  shape.m = m;
  shape.n = n;
  shape.k = kp;
  shape.out = out;
  GemmRun run;
  // Compiling first validates the shape, which bounds every host buffer below.
  const GemmKernel kernel = compile(schedule, shape, compile_options);
  run.compile = kernel.stats;

  std::vector<uint16_t> a(elements(m, kp, "padded A"), 0), bt(elements(n, kp, "padded B"), 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t x = 0; x < k; ++x) a[size_t(i * kp + x)] = a_mk[size_t(i * k + x)];
  for (int64_t x = 0; x < k; ++x)
    for (int64_t j = 0; j < n; ++j) bt[size_t(j * kp + x)] = b_kn[size_t(x * n + j)];

  const size_t c_bytes = elements(m, n, "C") * (out == OutType::f32 ? 4 : 2);
  Buffer da = device.alloc(a.size() * 2), db = device.alloc(bt.size() * 2), dc = device.alloc(c_bytes);
  da.upload(a);
  db.upload(bt);
  dc.fill_zero();
  run.launch = device.launch(kernel.kernel, kernel.grid, kernel.block, {da, db, dc}, launch);
  run.c.resize(c_bytes);
  dc.download(run.c.data(), c_bytes);
  return run;
}

}  // namespace cdna4
