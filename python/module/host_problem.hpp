#pragma once
// One GEMM's data from NumPy arrays: A, B, and what the schedule's MX scales
// and fused epilogue read, checked against the schedule with errors that name
// gemm()'s arguments.
#include <pybind11/numpy.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include "cdna4/gemm.hpp"

namespace cdna4::python {

// The keyword arguments as passed; None: not given.
struct GemmExtras {
  pybind11::object a_scale, b_scale, c, bias, alpha, beta;
};

// A GemmProblem and the bytes its spans point into (moving keeps them valid).
struct HostProblem {
  GemmProblem problem;
  std::vector<uint8_t> a, b, scale_a, scale_b, c, bias;
  HostProblem() = default;
  HostProblem(HostProblem&&) = default;
  HostProblem(const HostProblem&) = delete;
};

// A (M, K) and B (K, N) as gemm() takes them, each in C order or Fortran order
// (Fortran order is the transposed layout, read without a copy).
// Anything numpy.asarray takes (nested lists too).
HostProblem logical_problem(const Schedule& s, const pybind11::object& a, const pybind11::object& b,
                            const GemmExtras& extras, std::optional<OutType> out);
// A and B as a compiled kernel's layout stores them (Device.launch).
HostProblem stored_problem(const GemmKernel& kernel, const pybind11::object& a, const pybind11::object& b,
                           const GemmExtras& extras);
// Zeros for every buffer a compiled kernel reads (the timing model's data): one
// calloc'd block, whose untouched pages cost no memory.
class ZeroProblem {
 public:
  explicit ZeroProblem(const GemmKernel& kernel);
  const GemmProblem& problem() const { return problem_; }

 private:
  std::unique_ptr<uint8_t, void (*)(void*)> zeros_{nullptr, std::free};
  GemmProblem problem_;
};

// The C of a run or reference (packed M x N) as a NumPy array of `out`.
pybind11::array c_array(OutType out, int64_t m, int64_t n, const std::vector<uint8_t>& bits);

}  // namespace cdna4::python
