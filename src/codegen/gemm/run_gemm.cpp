// One-call GEMM: host-side padding of K to the kernel's granularity and the
// transpose of a K x N B into the kernel's N x K, then compile, upload, launch.
#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "cdna4/gemm.hpp"

namespace cdna4 {

GemmRun run_gemm(Device& device, const Schedule& schedule, int64_t m, int64_t n, int64_t k,
                 const std::vector<uint16_t>& a_mk, const std::vector<uint16_t>& b_kn, OutType out,
                 const LaunchOptions& launch, const CompileOptions& compile_options) {
  if (m < 1 || n < 1 || k < 1) throw Error(fmt::format("run_gemm: shape {}x{}x{}: M, N, K must be at least 1", m, n, k));
  if (a_mk.size() != size_t(m * k)) throw Error(fmt::format("run_gemm: A has {} elements, M*K = {}", a_mk.size(), m * k));
  if (b_kn.size() != size_t(k * n)) throw Error(fmt::format("run_gemm: B has {} elements, K*N = {}", b_kn.size(), k * n));
  // Zero columns up to a multiple of 8 add exact zeros to every dot product.
  const int64_t kp = (k + 7) / 8 * 8;
  std::vector<uint16_t> a(size_t(m * kp), 0), bt(size_t(n * kp), 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t x = 0; x < k; ++x) a[size_t(i * kp + x)] = a_mk[size_t(i * k + x)];
  for (int64_t x = 0; x < k; ++x)
    for (int64_t j = 0; j < n; ++j) bt[size_t(j * kp + x)] = b_kn[size_t(x * n + j)];

  GemmShape shape;
  shape.m = m;
  shape.n = n;
  shape.k = kp;
  shape.out = out;
  GemmRun run;
  const GemmKernel kernel = compile(schedule, shape, compile_options);
  run.compile = kernel.stats;

  const size_t c_bytes = size_t(m * n) * (out == OutType::f32 ? 4 : 2);
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
