// The CPU reference of a GemmProblem, laid out as run_gemm returns C.
#include <cstring>

#include "cdna4/gemm.hpp"
#include "cdna4/reference.hpp"
#include "codegen/gemm/problem_checks.hpp"

namespace cdna4 {

std::vector<uint8_t> reference(const Schedule& schedule, const GemmProblem& problem, MfmaPolicy policy) {
  detail::check_problem(schedule, problem);
  const GemmShape& sh = problem.shape;
  const Layout layout = problem.layout;
  const int64_t m = sh.m, n = sh.n, k = sh.k;
  const OutType out = output_type(schedule, sh.out);
  const size_t elem = size_t(element_bytes(out));
  const auto part = [](std::span<const uint8_t> v, size_t at, size_t count) {
    return count ? v.subspan(at, count) : std::span<const uint8_t>();
  };
  const size_t scales_a = schedule.scaled ? size_t(m * (k / 32)) : 0, scales_b = schedule.scaled ? size_t((k / 32) * n) : 0;
  std::vector<uint8_t> c(size_t((sh.batch - 1) * sh.c_stride() + (m - 1) * sh.c_ld() + n) * elem, 0);
  for (int64_t z = 0; z < sh.batch; ++z) {
    const auto a = reference_operand(schedule.type_a, problem.a, layout, Operand::a, m, k, sh.ld(layout, Operand::a),
                                     z * sh.stride(layout, Operand::a));
    const auto b = reference_operand(schedule.type_b, problem.b, layout, Operand::b, n, k, sh.ld(layout, Operand::b),
                                     z * sh.stride(layout, Operand::b));
    std::vector<float> d = reference_gemm(policy, schedule.type_a, a, schedule.type_b, b, m, n, k,
                                          part(problem.scale_a, size_t(z) * scales_a, scales_a),
                                          part(problem.scale_b, size_t(z) * scales_b, scales_b));
    if (const std::optional<Epilogue>& e = schedule.epilogue) {
      const size_t c_in_elem = e->c ? size_t(element_bits(*e->c) / 8) : 0;
      const size_t c_in_at = size_t(z * sh.c_stride()) * c_in_elem;
      d = reference_epilogue(d, m, n, *e, problem.alpha, problem.beta,
                             e->c ? problem.c.subspan(c_in_at) : std::span<const uint8_t>(), problem.bias,
                             sh.c_in_ld());
    }
    const std::vector<uint8_t> bits = to_output_bits(d, data_type(out));
    for (int64_t i = 0; i < m; ++i)
      std::memcpy(&c[size_t(z * sh.c_stride() + i * sh.c_ld()) * elem], &bits[size_t(i * n) * elem], size_t(n) * elem);
  }
  return c;
}

}  // namespace cdna4
