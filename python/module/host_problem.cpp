#include "host_problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "arguments.hpp"
#include "element_arrays.hpp"
#include "vocabulary/rows.hpp"

namespace py = pybind11;

namespace cdna4::python {
namespace {

py::array as_array(const py::object& x) { return py::module_::import("numpy").attr("asarray")(x); }

std::vector<int64_t> shape_of(const py::array& a) {
  return std::vector<int64_t>(a.shape(), a.shape() + a.ndim());
}

// `x` as an array of exactly `dims` (`names` spells them: "(M, K/32)").
py::array shaped(const py::object& x, const std::vector<int64_t>& dims, const char* name, const char* names) {
  const py::array a = as_array(x);
  if (shape_of(a) != dims)
    throw Error(fmt::format("{}: expected shape {} = ({}{}), got ({}{})", name, names, fmt::join(dims, ", "),
                            dims.size() == 1 ? "," : "", fmt::join(shape_of(a), ", "), a.ndim() == 1 ? "," : ""));
  return a;
}

// How an (rows x cols) operand is stored: C order is row-major, Fortran order
// its transpose row-major; anything else is refused (no hidden copy).
bool stored_transposed(const py::array& a, const char* name) {
  if (a.ndim() != 2) throw Error(fmt::format("{}: expected a 2-D array, got {} dimensions", name, a.ndim()));
  const auto flags = a.flags();
  if (flags & py::array::c_style) return false;
  if (flags & py::array::f_style) return true;
  throw Error(fmt::format("{}: neither C- nor Fortran-contiguous; pass a contiguous array (numpy.ascontiguousarray)", name));
}

// alpha / beta: a number that fp32 holds (rounded to nearest even), not one that
// overflows to infinity or underflows to zero.
float fp32_argument(const py::object& x, float absent, const char* name) {
  if (x.is_none()) return absent;
  const double d = number(x, name);
  const float f = float(d);
  if (std::isfinite(d) && std::isinf(f))
    throw Error(fmt::format("{} = {} is beyond fp32's range (largest finite {})", name, d,
                            std::numeric_limits<float>::max()));
  if (d != 0 && f == 0)
    throw Error(fmt::format("{} = {} underflows fp32 to 0 (smallest subnormal {})", name, d,
                            std::numeric_limits<float>::denorm_min()));
  return f;
}

void add_scales(const Schedule& s, const GemmExtras& x, HostProblem& hp) {
  const GemmShape& sh = hp.problem.shape;
  const bool given = !x.a_scale.is_none() || !x.b_scale.is_none();
  if (!s.scaled) {
    if (given)
      throw Error(fmt::format("schedule {} takes no scales (its MFMA is not v_mfma_scale_*): a_scale= and b_scale= "
                              "are for MX-scaled schedules", s.name));
    return;
  }
  if (x.a_scale.is_none() || x.b_scale.is_none())
    throw Error(fmt::format("schedule {} is MX-scaled (v_mfma_scale_*): pass a_scale= (M, K/32) and b_scale= "
                            "(K/32, N), uint8 E8M0 scales (127 is 1.0)", s.name));
  if (sh.k % 32 != 0)
    throw Error(fmt::format("K = {} is not a multiple of 32, the block of one MX scale (schedule {})", sh.k, s.name));
  hp.scale_a = scale_bytes(shaped(x.a_scale, {sh.m, sh.k / 32}, "a_scale", "(M, K/32)"), "a_scale");
  hp.scale_b = scale_bytes(shaped(x.b_scale, {sh.k / 32, sh.n}, "b_scale", "(K/32, N)"), "b_scale");
  hp.problem.scale_a = hp.scale_a;
  hp.problem.scale_b = hp.scale_b;
}

void add_epilogue(const Schedule& s, const GemmExtras& x, HostProblem& hp) {
  GemmProblem& p = hp.problem;
  const std::optional<Epilogue>& e = s.epilogue;
  if (!e) {
    if (!x.c.is_none() || !x.bias.is_none() || !x.alpha.is_none() || !x.beta.is_none())
      throw Error(fmt::format("schedule {} has no fused epilogue (its \"epilogue\"): c=, bias=, alpha= and beta= "
                              "need one", s.name));
    return;
  }
  if (e->c) {
    if (x.c.is_none())
      throw Error(fmt::format("schedule {}'s epilogue reads C ({}): pass c= as an (M, N) array", s.name, to_string(*e->c)));
    hp.c = element_bytes(shaped(x.c, {p.shape.m, p.shape.n}, "c", "(M, N)"), *e->c, "c");
    p.c = hp.c;
  } else if (!x.c.is_none() || !x.beta.is_none()) {
    throw Error(fmt::format("schedule {}'s epilogue reads no C: c= and beta= need one with \"c\"", s.name));
  }
  if (e->bias != BiasDim::none) {
    const bool per_row = e->bias == BiasDim::m;
    if (x.bias.is_none())
      throw Error(fmt::format("schedule {}'s epilogue adds a bias per {}: pass bias= as a ({},) array of {}", s.name,
                              per_row ? "row" : "column", per_row ? "M" : "N", to_string(e->bias_type)));
    hp.bias = element_bytes(shaped(x.bias, {per_row ? p.shape.m : p.shape.n}, "bias", per_row ? "(M,)" : "(N,)"),
                            e->bias_type, "bias");
    p.bias = hp.bias;
  } else if (!x.bias.is_none()) {
    throw Error(fmt::format("schedule {}'s epilogue adds no bias: bias= needs one with \"bias\"", s.name));
  }
  p.alpha = fp32_argument(x.alpha, 1.0f, "alpha");
  p.beta = fp32_argument(x.beta, e->c ? 1.0f : 0.0f, "beta");
}

void add_extras(const Schedule& s, const GemmExtras& x, HostProblem& hp) {
  add_scales(s, x, hp);
  add_epilogue(s, x, hp);
}

}  // namespace

HostProblem logical_problem(const Schedule& s, const py::object& a_in, const py::object& b_in, const GemmExtras& extras,
                            std::optional<OutType> out) {
  const py::array a = native_byte_order(as_array(a_in)), b = native_byte_order(as_array(b_in));
  const bool a_t = stored_transposed(a, "a"), b_t = stored_transposed(b, "b");
  const int64_t m = a.shape(0), k = a.shape(1), n = b.shape(1);
  if (b.shape(0) != k) throw Error(fmt::format("a is {} x {} but b is {} x {}: K differs", m, k, b.shape(0), n));
  HostProblem hp;
  GemmProblem& p = hp.problem;
  p.shape.m = m;
  p.shape.n = n;
  p.shape.k = k;
  p.shape.out = out;
  // A C-order (M, K) is A "n", a Fortran-order one K x M row-major, "t";
  // B C-order (K, N) is B "n", a Fortran-order one N x K row-major, "t".
  p.layout = a_t ? (b_t ? Layout::tt : Layout::tn) : (b_t ? Layout::nt : Layout::nn);
  const auto memory_order = [](const py::array& x, bool t) { return t ? py::array(x.attr("T")) : x; };
  hp.a = element_bytes(memory_order(a, a_t), s.type_a, "a");
  hp.b = element_bytes(memory_order(b, b_t), s.type_b, "b");
  p.a = hp.a;
  p.b = hp.b;
  add_extras(s, extras, hp);
  return hp;
}

HostProblem stored_problem(const GemmKernel& kernel, const py::object& a, const py::object& b, const GemmExtras& extras) {
  const Schedule& s = kernel.schedule;
  HostProblem hp;
  GemmProblem& p = hp.problem;
  p.shape = kernel.shape;
  p.layout = s.layout;
  const auto operand = [&](const py::object& x, Operand op, const char* name) {
    const bool is_a = op == Operand::a;
    const char* names = is_a ? (k_major(p.layout, op) ? "(K, M)" : "(M, K)") : (k_major(p.layout, op) ? "(K, N)" : "(N, K)");
    return element_bytes(shaped(x, {p.shape.stored_rows(p.layout, op), p.shape.stored_cols(p.layout, op)}, name, names),
                         operand_type(s, op), name);
  };
  hp.a = operand(a, Operand::a, "a");
  hp.b = operand(b, Operand::b, "b");
  p.a = hp.a;
  p.b = hp.b;
  add_extras(s, extras, hp);
  return hp;
}

ZeroProblem::ZeroProblem(const GemmKernel& kernel) {
  const Schedule& s = kernel.schedule;
  const GemmShape& sh = kernel.shape;
  problem_.shape = sh;
  problem_.layout = s.layout;
  const size_t a = packed_bytes(s.type_a, sh.m * sh.k), b = packed_bytes(s.type_b, sh.k * sh.n);
  const size_t scale_a = s.scaled ? size_t(sh.m * (sh.k / 32)) : 0, scale_b = s.scaled ? size_t(sh.k / 32 * sh.n) : 0;
  const std::optional<Epilogue>& e = s.epilogue;
  const size_t c = e && e->c ? packed_bytes(*e->c, sh.m * sh.n) : 0;
  const int64_t bias_len = !e ? 0 : e->bias == BiasDim::m ? sh.m : e->bias == BiasDim::n ? sh.n : 0;
  const size_t bias = e ? packed_bytes(e->bias_type, bias_len) : 0;
  const size_t largest = std::max({a, b, scale_a, scale_b, c, bias, size_t(1)});
  zeros_.reset(static_cast<uint8_t*>(std::calloc(largest, 1)));
  if (!zeros_) throw Error(fmt::format("cannot allocate {} bytes of zeros for the model's data", largest));
  const uint8_t* z = zeros_.get();
  problem_.a = HostBytes(z, a);
  problem_.b = HostBytes(z, b);
  problem_.scale_a = HostBytes(z, scale_a);
  problem_.scale_b = HostBytes(z, scale_b);
  problem_.c = HostBytes(z, c);
  problem_.bias = HostBytes(z, bias);
}

py::array c_array(OutType out, int64_t m, int64_t n, const std::vector<uint8_t>& bits) {
  // NumPy has no bfloat16: bf16 results come back as their uint16 bit patterns.
  const py::dtype dtype =
      out == OutType::bf16 ? py::dtype::of<uint16_t>() : py::dtype(std::string(vocabulary::row(out).numpy));
  py::array result(dtype, std::vector<py::ssize_t>{m, n});
  const size_t bytes = size_t(m) * size_t(n) * size_t(element_bytes(out));
  if (bits.size() < bytes) throw Error(fmt::format("C holds {} bytes, {} x {} need {}", bits.size(), m, n, bytes));
  std::memcpy(result.mutable_data(), bits.data(), bytes);
  return result;
}

}  // namespace cdna4::python
