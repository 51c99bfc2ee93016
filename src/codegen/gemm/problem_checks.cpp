#include "codegen/gemm/problem_checks.hpp"

#include <cstdint>
#include <optional>

#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "common/checked.hpp"

namespace cdna4::detail {
namespace {

// Elements from a stored matrix's first to one past its last, `batch` of them
// `stride` apart, rows `ld` apart; nullopt when that does not fit.
std::optional<int64_t> extent(int64_t batch, int64_t stride, int64_t rows, int64_t ld, int64_t cols) {
  const auto last_matrix = checked::mul(batch - 1, stride), last_row = checked::mul(rows - 1, ld);
  if (!last_matrix || !last_row) return std::nullopt;
  const auto first_of_last_row = checked::add(*last_matrix, *last_row);
  return first_of_last_row ? checked::add(*first_of_last_row, cols) : std::nullopt;
}

struct Check {
  const Schedule& schedule;
  const GemmProblem& p;
  std::string shape_text() const {
    const GemmShape& sh = p.shape;
    return sh.batch == 1 ? fmt::format("{}x{}x{}", sh.m, sh.n, sh.k)
                         : fmt::format("{}x{}x{} batch {}", sh.m, sh.n, sh.k, sh.batch);
  }
  const char* per() const { return p.shape.batch == 1 ? "" : " (all matrices of the batch)"; }
  int64_t fits(std::optional<int64_t> count, const std::string& what) const {
    if (!count || uint64_t(*count) > SIZE_MAX / 4)
      throw Error(fmt::format("run_gemm: shape {}: {} does not fit in memory sizes", shape_text(), what));
    return *count;
  }
  void at_least(std::span<const uint8_t> v, DataType type, int64_t count, const std::string& what) const {
    if (v.size() < packed_bytes(type, count))
      throw Error(fmt::format("run_gemm: {} holds {} bytes; the shape {} (layout {}) reads {} {} elements = {} bytes",
                              what, v.size(), p.shape.to_string(), to_string(p.layout), count, to_string(type),
                              packed_bytes(type, count)));
  }

  void operand(Operand op) const {
    const GemmShape& sh = p.shape;
    const bool is_a = op == Operand::a;
    const DataType type = is_a ? schedule.type_a : schedule.type_b;
    const std::span<const uint8_t> v = is_a ? p.a : p.b;
    const char* name = is_a ? "A" : "B";
    const int64_t rows = sh.stored_rows(p.layout, op), cols = sh.stored_cols(p.layout, op);
    const int64_t given_ld = is_a ? sh.lda : sh.ldb, given_stride = is_a ? sh.stride_a : sh.stride_b;
    if (given_ld == 0 && (sh.batch == 1 || given_stride == 0)) {  // packed: the buffer is the matrices
      const int64_t count = fits(checked::mul(rows, cols, sh.batch),
                                 fmt::format("{} ({} x {}, {} of them)", name, rows, cols, sh.batch));
      if (v.size() != packed_bytes(type, count))
        throw Error(fmt::format("run_gemm: {} has {} elements ({} bytes of {}), {}{} = {}", name,
                                v.size() * 8 / size_t(element_bits(type)), v.size(), to_string(type),
                                is_a ? "M*K" : "K*N", sh.batch == 1 ? "" : "*batch", count));
      return;
    }
    const int64_t ld = sh.ld(p.layout, op);
    if (ld < cols)
      throw Error(fmt::format("run_gemm: ld{} = {} is smaller than {}'s stored row of {} elements (layout {})",
                              is_a ? "a" : "b", ld, name, cols, to_string(p.layout)));
    at_least(v, type, fits(extent(sh.batch, sh.stride(p.layout, op), rows, ld, cols), name), name);
  }

  void scales() const {
    const GemmShape& sh = p.shape;
    if (!schedule.scaled && (!p.scale_a.empty() || !p.scale_b.empty()))
      throw Error(fmt::format("run_gemm: schedule {} takes no scales (its MFMA is not v_mfma_scale_*)", schedule.name));
    if (!schedule.scaled) return;
    if (sh.k % 32 != 0)
      throw Error(fmt::format("run_gemm: K = {} is not a multiple of 32, the block of one MX scale (schedule {})", sh.k,
                              schedule.name));
    const int64_t count_a = fits(checked::mul(sh.m, sh.k / 32, sh.batch), "scale_a");
    const int64_t count_b = fits(checked::mul(sh.k / 32, sh.n, sh.batch), "scale_b");
    if (int64_t(p.scale_a.size()) != count_a || int64_t(p.scale_b.size()) != count_b)
      throw Error(fmt::format("run_gemm: scales hold {} and {} bytes; M x K/32 = {} and K/32 x N = {} expected{}",
                              p.scale_a.size(), p.scale_b.size(), count_a, count_b, per()));
  }

  void epilogue() const {
    const GemmShape& sh = p.shape;
    const std::optional<Epilogue>& epi = schedule.epilogue;
    if (!epi && (!p.c.empty() || !p.bias.empty()))
      throw Error(fmt::format("run_gemm: schedule {} has no fused epilogue: C and bias data need one (\"epilogue\" or "
                              "CompileOptions::epilogue)", schedule.name));
    if (!epi) return;
    const bool packed_c = sh.ldc == 0 && sh.ldc_in == 0 && (sh.batch == 1 || sh.stride_c == 0);
    if (epi->c && !packed_c) {
      at_least(p.c, *epi->c, fits(extent(sh.batch, sh.c_stride(), sh.m, sh.c_in_ld(), sh.n), "the epilogue's C"),
               "the epilogue's C");
    } else {
      const size_t c_bytes =
          epi->c ? size_t(fits(checked::mul(sh.m, sh.n, sh.batch), "C input")) * size_t(element_bits(*epi->c) / 8) : 0;
      if (p.c.size() != c_bytes)
        throw Error(fmt::format("run_gemm: the epilogue's C holds {} bytes; {} expected ({}){}", p.c.size(), c_bytes,
                                epi->c ? fmt::format("M x N {}", to_string(*epi->c)) : "the epilogue reads no C", per()));
    }
    const int64_t bias_len = epi->bias == BiasDim::m ? sh.m : epi->bias == BiasDim::n ? sh.n : 0;
    const size_t bias_bytes = size_t(bias_len) * size_t(element_bits(epi->bias_type) / 8);
    if (p.bias.size() != bias_bytes)
      throw Error(fmt::format("run_gemm: the bias holds {} bytes; {} expected ({})", p.bias.size(), bias_bytes,
                              bias_len ? fmt::format("{} {} elements", bias_len, to_string(epi->bias_type))
                                       : "the epilogue has no bias"));
  }
};

}  // namespace

void check_problem(const Schedule& schedule, const GemmProblem& problem) {
  const Check check{schedule, problem};
  const GemmShape& sh = problem.shape;
  if (sh.m < 1 || sh.n < 1 || sh.k < 1 || sh.batch < 1)
    throw Error(fmt::format("run_gemm: shape {}: M, N, K and the batch must be at least 1", check.shape_text()));
  if (sh.lda < 0 || sh.ldb < 0 || sh.ldc < 0 || sh.ldc_in < 0 || sh.stride_a < 0 || sh.stride_b < 0 || sh.stride_c < 0)
    throw Error(fmt::format("run_gemm: shape {}: leading dimensions and strides must not be negative", check.shape_text()));
  check.operand(Operand::a);
  check.operand(Operand::b);
  check.scales();
  check.epilogue();
}

void check_kernel_reads(const Schedule& schedule, const GemmProblem& problem, Operand op) {
  const GemmShape& sh = problem.shape;
  const bool is_a = op == Operand::a;
  const DataType type = is_a ? schedule.type_a : schedule.type_b;
  const int64_t count = (sh.batch - 1) * sh.stride(problem.layout, op) +
                        sh.read_elements(problem.layout, op, element_bits(type));
  Check{schedule, problem}.at_least(is_a ? problem.a : problem.b, type, count, is_a ? "A" : "B");
}

}  // namespace cdna4::detail
