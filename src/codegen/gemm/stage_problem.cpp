// A GemmProblem as the kernel reads it: each operand goes to the kernel in the
// layout the caller stored it (no host transpose) unless K needs padding to the
// kernel's granule, a K-major row whole 16-byte units, or a 4- or 6-bit operand
// stored K-major its transpose (the kernel reads those with K contiguous).
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "cdna4/gemm.hpp"
#include "common/checked.hpp"
#include "codegen/gemm/problem_checks.hpp"

namespace cdna4 {
namespace {

// Element `i` of a densely packed array of `bits`-bit elements: bits [bits * i,
// bits * (i + 1)) of the little-endian bit string (4, 6, 8, 16).
uint32_t get(std::span<const uint8_t> v, size_t i, int bits) {
  if (bits % 8 == 0) {
    uint32_t x = 0;
    std::memcpy(&x, &v[i * size_t(bits / 8)], size_t(bits / 8));
    return x;
  }
  const size_t bit = i * size_t(bits);
  uint32_t word = v[bit / 8];
  if (bit % 8 + size_t(bits) > 8) word |= uint32_t(v[bit / 8 + 1]) << 8;
  return (word >> (bit % 8)) & ((1u << bits) - 1);
}

void put(std::vector<uint8_t>& v, size_t i, int bits, uint32_t x) {
  if (bits % 8 == 0) {
    std::memcpy(&v[i * size_t(bits / 8)], &x, size_t(bits / 8));
    return;
  }
  const size_t bit = i * size_t(bits);
  const uint32_t mask = ((1u << bits) - 1) << (bit % 8);
  const uint32_t shifted = x << (bit % 8);
  v[bit / 8] = uint8_t((v[bit / 8] & ~mask) | (shifted & mask));
  if (bit % 8 + size_t(bits) > 8)
    v[bit / 8 + 1] = uint8_t((v[bit / 8 + 1] & ~(mask >> 8)) | ((shifted & mask) >> 8));
}

Layout layout_of(bool a_k_major, bool b_k_major) {
  return a_k_major ? (b_k_major ? Layout::tn : Layout::tt) : (b_k_major ? Layout::nn : Layout::nt);
}

// How one operand (M or N = `mn` by K, `batch` of them) is stored: K-major or
// not, rows `ld` apart, matrices `stride` apart (elements).
struct Storage {
  bool k_major;
  int64_t ld, stride;
};

// The caller's matrices (K columns) copied into `to`, K zero-padded to kp.
std::vector<uint8_t> restage(std::span<const uint8_t> in, const Storage& from, int bits, int64_t batch, int64_t mn,
                             int64_t k, const Storage& to) {
  std::vector<uint8_t> out(size_t((batch * to.stride * bits + 7) / 8), 0);
  for (int64_t z = 0; z < batch; ++z)
    for (int64_t i = 0; i < mn; ++i)
      for (int64_t x = 0; x < k; ++x) {
        const int64_t at_in = z * from.stride + (from.k_major ? x * from.ld + i : i * from.ld + x);
        const int64_t at = z * to.stride + (to.k_major ? x * to.ld + i : i * to.ld + x);
        put(out, size_t(at), bits, get(in, size_t(at_in), bits));
      }
  return out;
}

// Scales of K = k padded to kp: K is whole scale blocks, and the added blocks
// (of zero elements) get 1.0, which only ever scales zeros.
void pad_scales(const GemmProblem& p, int64_t kp, StagedProblem& staged) {
  const int64_t m = p.shape.m, n = p.shape.n, batch = p.shape.batch;
  const int64_t blocks = p.shape.k / 32, padded_blocks = kp / 32;
  staged.scale_a.assign(size_t(batch * m * padded_blocks), 127);
  staged.scale_b.assign(size_t(batch * padded_blocks * n), 127);
  for (int64_t z = 0; z < batch; ++z) {
    for (int64_t i = 0; i < m; ++i)
      std::memcpy(&staged.scale_a[size_t((z * m + i) * padded_blocks)], &p.scale_a[size_t((z * m + i) * blocks)],
                  size_t(blocks));
    std::memcpy(&staged.scale_b[size_t(z * padded_blocks * n)], &p.scale_b[size_t(z * blocks * n)], size_t(blocks * n));
  }
  staged.problem.scale_a = staged.scale_a;
  staged.problem.scale_b = staged.scale_b;
}

}  // namespace

StagedProblem stage(const Schedule& schedule, const GemmProblem& problem) {
  detail::check_problem(schedule, problem);
  StagedProblem staged;
  GemmProblem& to = staged.problem;
  to = problem;
  to.shape.out = output_type(schedule, problem.shape.out);
  const GemmShape& sh = problem.shape;
  // Zero columns up to whole 16-byte rows add exact zeros to every dot product.
  const int granule = k_granule(schedule);
  const auto padded = checked::round_up<int64_t>(sh.k, granule);
  if (!padded) throw Error(fmt::format("run_gemm: K = {} cannot be padded to a multiple of {}", sh.k, granule));
  const int64_t kp = *padded;
  to.shape.k = kp;

  bool k_major_as_kernel[2] = {false, false};
  for (Operand op : {Operand::a, Operand::b}) {
    const bool is_a = op == Operand::a;
    const int bits = element_bits(is_a ? schedule.type_a : schedule.type_b);
    const int64_t mn = is_a ? sh.m : sh.n;
    const Storage from{k_major(problem.layout, op), sh.ld(problem.layout, op), sh.stride(problem.layout, op)};
    Storage kernel = from;
    kernel.k_major = from.k_major && (bits == 16 || bits == 8);
    k_major_as_kernel[is_a ? 0 : 1] = kernel.k_major;
    const std::span<const uint8_t> data = is_a ? problem.a : problem.b;
    if (kernel.k_major == from.k_major && kp == sh.k && from.ld % element_granule(bits) == 0) {
      detail::check_kernel_reads(schedule, to, op);
      continue;  // the kernel reads the caller's buffer
    }
    kernel.ld = kernel.k_major ? checked::ceil_div<int64_t>(mn, element_granule(bits)) * element_granule(bits) : kp;
    const auto matrix = checked::mul<int64_t>(kernel.k_major ? kp : mn, kernel.ld, sh.batch);
    if (!matrix || uint64_t(*matrix) > SIZE_MAX / 4)
      throw Error(fmt::format("run_gemm: shape {}: padded {} does not fit in memory sizes", sh.to_string(),
                              is_a ? "A" : "B"));
    kernel.stride = (kernel.k_major ? kp : mn) * kernel.ld;
    std::vector<uint8_t>& copy = is_a ? staged.a : staged.b;
    copy = restage(data, from, bits, sh.batch, mn, sh.k, kernel);
    (is_a ? to.a : to.b) = copy;
    (is_a ? to.shape.lda : to.shape.ldb) = kernel.ld;
    (is_a ? to.shape.stride_a : to.shape.stride_b) = 0;  // packed
  }
  to.layout = layout_of(k_major_as_kernel[0], k_major_as_kernel[1]);
  if (schedule.scaled && kp != sh.k) pad_scales(problem, kp, staged);
  return staged;
}

}  // namespace cdna4
