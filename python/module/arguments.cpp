#include "arguments.hpp"

#include <pybind11/numpy.h>

#include <cmath>

#include <fmt/format.h>

#include "vocabulary/rows.hpp"

namespace py = pybind11;

namespace cdna4::python {

std::string type_name(const py::handle& x) { return py::str(py::type::handle_of(x).attr("__qualname__")); }

double number(const py::handle& x, const std::string& name) {
  if (!PyNumber_Check(x.ptr()) || py::isinstance<py::str>(x) || PyComplex_Check(x.ptr()))
    throw Error(fmt::format("{}: expected a number, got {}", name, type_name(x)));
  return py::float_(py::reinterpret_borrow<py::object>(x)).cast<double>();
}

std::optional<OutType> out_type_named(const py::object& out_dtype) {
  if (out_dtype.is_none()) return std::nullopt;
  std::string expected;
  for (const vocabulary::OutTypeRow& row : vocabulary::kOutTypes)
    expected += fmt::format("{}'{}'{}", expected.empty() ? "" : ", ", row.numpy,
                            row.value == OutType::bf16 ? " (returned as uint16 bit patterns)" : "");
  std::string name;
  if (py::isinstance<py::str>(out_dtype)) {
    name = out_dtype.cast<std::string>();
  } else {
    try {
      name = py::str(py::dtype::from_args(out_dtype).attr("name"));
    } catch (const py::error_already_set&) {
      throw Error(fmt::format("out_dtype {}: expected one of {}, a NumPy dtype or None (the schedule's types.c)",
                              std::string(py::repr(out_dtype)), expected));
    }
  }
  for (const vocabulary::OutTypeRow& row : vocabulary::kOutTypes)
    if (row.numpy == name) return row.value;
  throw Error(fmt::format("out_dtype '{}': expected one of {}, or None (the schedule's types.c)", name, expected));
}

GemmShape shape_named(int64_t m, int64_t n, int64_t k, const py::object& out_dtype) {
  GemmShape shape;
  shape.m = m;
  shape.n = n;
  shape.k = k;
  shape.out = out_type_named(out_dtype);
  return shape;
}

std::optional<Layout> layout_named(const py::object& layout) {
  if (layout.is_none()) return std::nullopt;
  if (!py::isinstance<py::str>(layout))
    throw Error(fmt::format("layout: expected 'nn', 'nt', 'tn', 'tt' or None, got {}", type_name(layout)));
  return parse<Layout>(layout.cast<std::string>());
}

std::string device_name(const py::object& name) {
  if (!py::isinstance<py::str>(name))
    throw Error(fmt::format("device: expected 'emulator', 'model', 'hsa' or a cdna4jit.Device, got {}", type_name(name)));
  return name.cast<std::string>();
}

double time_limit_seconds(const py::object& x) {
  if (x.is_none()) return 0;
  const double seconds = number(x, "time_limit");
  if (!(seconds > 0))
    throw Error(fmt::format("time_limit = {}: expected seconds > 0, or None for no limit", std::string(py::repr(x))));
  return std::isinf(seconds) ? 0 : seconds;
}

}  // namespace cdna4::python
