#pragma once
// One attention forward's data from NumPy arrays: q [B, Nq, H, D], k and v
// [B, Nk, Hkv, D], each read in place at its strides when it holds bf16 bit
// patterns (uint16, native byte order, D consecutive, strides non-negative) and
// otherwise converted into a packed copy (values rounded once to nearest even
// into bf16, as gemm() takes them). O is asked for in f32, packed BSHD.
#include <pybind11/numpy.h>

#include <cstdint>
#include <vector>

#include "cdna4/attention.hpp"

namespace cdna4::python {

// An AttentionProblem and what its spans point into: the caller's arrays (kept
// referenced) or copies (moving keeps them valid).
struct AttentionHost {
  AttentionProblem problem;
  pybind11::array q_array, k_array, v_array;
  std::vector<uint8_t> q_copy, k_copy, v_copy;
  AttentionHost() = default;
  AttentionHost(AttentionHost&&) = default;
  AttentionHost(const AttentionHost&) = delete;
};

// attention()'s arguments; shapes and dtypes refused in words naming q, k and v,
// the problem then refused in validate()'s words (D, H % Hkv, the scale).
AttentionHost attention_problem(const pybind11::object& q, const pybind11::object& k, const pybind11::object& v,
                                const pybind11::object& causal, const pybind11::object& scale,
                                const pybind11::object& return_lse);

// O as float32 [B, Nq, H, D] and the LSE as float32 [B, H, Nq], from an output
// laid out as the problem asks.
pybind11::object attention_result(const AttentionProblem& problem, const AttentionOutput& out);

}  // namespace cdna4::python
