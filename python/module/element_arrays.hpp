#pragma once
// NumPy arrays -> the densely packed element bytes the kernels read, one rule
// per NumPy dtype: float16 / float32 / float64 are values, rounded once to
// nearest even into the element type; uint16 are bf16 / f16 bit patterns;
// uint8 are 8-, 6- or 4-bit codes, one per element. Arrays in a non-native
// byte order are read as their values; any other dtype is refused.
#include <pybind11/numpy.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cdna4/vocabulary.hpp"

namespace cdna4::python {

// The array in the machine's byte order (the same array when it already is).
pybind11::array native_byte_order(const pybind11::array& a);
// The elements of `a` in C order as `type` (f32, bf16, f16, fp8, bf8, fp6, bf6
// or fp4), packed as GemmProblem takes them; `name` names the array in errors.
std::vector<uint8_t> element_bytes(const pybind11::array& a, DataType type, const std::string& name);
// E8M0 scale bytes (uint8 only), in C order.
std::vector<uint8_t> scale_bytes(const pybind11::array& a, const std::string& name);
// The dtype's name as NumPy spells it ('float32', '>u2', 'object').
std::string dtype_name(const pybind11::array& a);

}  // namespace cdna4::python
