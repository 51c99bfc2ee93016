#pragma once
// The module's plain arguments read from Python objects, each refused in words
// (naming the argument and what it takes) rather than by a failed cast.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>

#include "cdna4/gemm.hpp"

namespace cdna4::python {

// "int", "str", "ndarray": the type's name as Python spells it.
std::string type_name(const pybind11::handle& x);
// A real number (int, float, NumPy scalar; not a str).
double number(const pybind11::handle& x, const std::string& name);
// 'float32' / 'bfloat16' / 'float16' (the output types' NumPy names) or a NumPy
// dtype; None: the schedule's types.c.
std::optional<OutType> out_type_named(const pybind11::object& out_dtype);
// M x N x K with out_dtype's output type.
GemmShape shape_named(int64_t m, int64_t n, int64_t k, const pybind11::object& out_dtype);
// 'nn', 'nt', 'tn' or 'tt'; None: the schedule's.
std::optional<Layout> layout_named(const pybind11::object& layout);
// 'emulator', 'model' or 'hsa'.
std::string device_name(const pybind11::object& name);
// Device(time_limit=...): seconds > 0 (infinity: none), None: no limit (0 for EmulatorConfig).
double time_limit_seconds(const pybind11::object& x);

}  // namespace cdna4::python
