#include "element_arrays.hpp"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "cdna4/reference.hpp"

namespace py = pybind11;

namespace cdna4::python {
namespace {

// A float64 value narrowed to float32 rounding to odd (truncate, then set the
// last bit when inexact). Every element type then rounds it once, to nearest
// even, exactly as if from the float64 value: float32 carries at least two more
// significand bits than bf16, f16 and the 8/6/4-bit types at every magnitude.
float round_to_odd(double d) {
  float f = float(d);
  if (std::isnan(d) || double(f) == d) return f;
  if (std::fabs(double(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits |= 1;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Element i of a C-order array (NumPy does not promise alignment).
template <class T>
T load(const uint8_t* data, size_t i) {
  T value;
  std::memcpy(&value, data + i * sizeof(T), sizeof(T));
  return value;
}

py::array c_order(const py::array& a) { return py::module_::import("numpy").attr("ascontiguousarray")(a); }

std::string accepted_dtypes(DataType type) {
  const int bits = element_bits(type);
  if (type == DataType::f32) return "float32, float64 or float16 values";
  if (bits == 16) return "float32, float64 or float16 values (rounded to nearest even) or uint16 bit patterns";
  return fmt::format("float32, float64 or float16 values (rounded to nearest even) or uint8 codes (one per element{})",
                     bits < 8 ? fmt::format(", below {}", 1 << bits) : "");
}

// The elements from their float values.
template <class ValueAt>
std::vector<uint8_t> encode(DataType type, size_t count, ValueAt value_at) {
  if (type == DataType::f32 || type == DataType::bf16) {
    const size_t size = type == DataType::f32 ? 4 : 2;
    std::vector<uint8_t> out(count * size);
    for (size_t i = 0; i < count; ++i) {
      const float v = value_at(i);
      if (size == 4) {
        std::memcpy(&out[4 * i], &v, 4);
      } else {
        const uint16_t x = float_to_bf16(v);
        std::memcpy(&out[2 * i], &x, 2);
      }
    }
    return out;
  }
  std::vector<uint32_t> codes(count);
  for (size_t i = 0; i < count; ++i) codes[i] = encode_element(type, value_at(i));
  return pack_elements(type, codes);
}

}  // namespace

std::string dtype_name(const py::array& a) { return py::str(a.dtype()); }

py::array native_byte_order(const py::array& a) {
  if (a.dtype().attr("isnative").cast<bool>()) return a;
  return a.attr("astype")(a.dtype().attr("newbyteorder")("="));  // keeps C or Fortran order
}

std::vector<uint8_t> element_bytes(const py::array& array, DataType type, const std::string& name) {
  const py::array a = c_order(native_byte_order(array));
  const char kind = a.dtype().kind();
  const size_t size = size_t(a.itemsize()), count = size_t(a.size());
  const int bits = element_bits(type);
  const uint8_t* data = static_cast<const uint8_t*>(a.data());
  if (kind == 'f' && size == 8 && type == DataType::f32)
    return encode(type, count, [&](size_t i) { return float(load<double>(data, i)); });
  if (kind == 'f' && size == 8)
    return encode(type, count, [&](size_t i) { return round_to_odd(load<double>(data, i)); });
  if (kind == 'f' && size == 4)
    return encode(type, count, [&](size_t i) { return load<float>(data, i); });
  if (kind == 'f' && size == 2)
    return encode(type, count, [&](size_t i) { return decode_element(DataType::f16, load<uint16_t>(data, i)); });
  if (kind == 'u' && size == 2 && bits == 16) return std::vector<uint8_t>(data, data + 2 * count);
  if (kind == 'u' && size == 1 && bits <= 8) {
    std::vector<uint32_t> codes(data, data + count);
    for (size_t i = 0; i < count; ++i)
      if (codes[i] >> bits)
        throw Error(fmt::format("{}: element {} is {}, not a {}-bit {} code (uint8 arrays hold one code per element)",
                                name, i, codes[i], bits, to_string(type)));
    return bits == 8 ? std::vector<uint8_t>(data, data + count) : pack_elements(type, codes);
  }
  throw Error(fmt::format("{}: dtype {} does not hold {} elements; pass {}", name, dtype_name(array), to_string(type),
                          accepted_dtypes(type)));
}

std::vector<uint8_t> scale_bytes(const py::array& array, const std::string& name) {
  const py::array a = c_order(array);
  if (a.dtype().kind() != 'u' || a.itemsize() != 1)
    throw Error(fmt::format("{}: dtype {} does not hold E8M0 scales; pass uint8 (2^(e - 127))", name, dtype_name(array)));
  const uint8_t* data = static_cast<const uint8_t*>(a.data());
  return std::vector<uint8_t>(data, data + a.size());
}

}  // namespace cdna4::python
