#include "schedule_source.hpp"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "arguments.hpp"
#include "codegen/schedule/json_limits.hpp"

namespace py = pybind11;

namespace cdna4::python {
namespace {

constexpr const char* kDictFile = "<dict>";

// Refuses, naming the field, what json.dumps would write as no JSON
// (NaN, Infinity) or could not write at all.
void check_json_value(const py::handle& value, const std::string& path, int depth = 0) {
  if (depth > detail::kMaxJsonDepth)
    throw ScheduleError(kDictFile, path, fmt::format("nested deeper than {} levels", detail::kMaxJsonDepth));
  if (value.is_none() || py::isinstance<py::bool_>(value) || py::isinstance<py::str>(value) ||
      py::isinstance<py::int_>(value))
    return;
  if (py::isinstance<py::float_>(value)) {
    if (!std::isfinite(value.cast<double>()))
      throw ScheduleError(kDictFile, path, fmt::format("{} is not a JSON number", std::string(py::repr(value))));
    return;
  }
  if (py::isinstance<py::dict>(value)) {
    for (const auto& [key, item] : value.cast<py::dict>()) {
      if (!py::isinstance<py::str>(key))
        throw ScheduleError(kDictFile, path, fmt::format("key {} is not a str", std::string(py::repr(key))));
      const std::string name = key.cast<std::string>();
      check_json_value(item, path.empty() ? name : path + "." + name, depth + 1);
    }
    return;
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    size_t i = 0;
    for (const py::handle item : value) check_json_value(item, fmt::format("{}[{}]", path, i++), depth + 1);
    return;
  }
  throw ScheduleError(kDictFile, path,
                      fmt::format("{} is not a JSON type (expected dict, list, str, int, float, bool or None)",
                                  type_name(value)));
}

// A schedule of either kind from a dict, JSON text or a path; `parse` and
// `load` are the kind's readers, `accepted` names what else the caller takes.
template <class Parse, class Load>
auto from_source(const py::handle& source, Parse parse, Load load, const char* accepted) {
  const py::module_ json = py::module_::import("json"), os = py::module_::import("os");
  if (py::isinstance<py::dict>(source)) {
    check_json_value(source, "");
    return parse(json.attr("dumps")(source).cast<std::string>(), kDictFile);
  }
  if (py::isinstance<py::str>(source) && source.attr("lstrip")().attr("startswith")("{").cast<bool>())
    return parse(source.cast<std::string>(), "<text>");
  if (py::isinstance<py::str>(source) || py::isinstance<py::bytes>(source) || py::hasattr(source, "__fspath__")) {
    const std::string path = os.attr("fsencode")(source).cast<std::string>();  // the file system's bytes
    if (path.empty()) throw ScheduleError("<schedule>", "", "an empty path names no schedule file");
    if (path.find('\0') != std::string::npos)
      throw ScheduleError(std::string(py::repr(source)), "", "a path cannot hold a NUL character");
    return load(path);
  }
  throw ScheduleError("<schedule>", "",
                      fmt::format("expected a path (str, bytes or os.PathLike), JSON text, a dict{}, got {}",
                                  accepted, type_name(source)));
}

}  // namespace

Schedule schedule_from(const py::handle& source) {
  if (py::isinstance<Schedule>(source)) return source.cast<Schedule>();
  return from_source(
      source, [](const std::string& text, const std::string& file) { return parse_schedule(text, file); },
      [](const std::string& path) { return load_schedule(path); }, " or a cdna4jit.Schedule");
}

AttentionSchedule attention_schedule_from(const py::handle& source) {
  return from_source(
      source, [](const std::string& text, const std::string& file) { return parse_attention_schedule(text, file); },
      [](const std::string& path) { return load_attention_schedule(path); }, "");
}

}  // namespace cdna4::python
