#include "attention_problem.hpp"

#include <cstring>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "arguments.hpp"
#include "cdna4/error.hpp"
#include "element_arrays.hpp"

namespace py = pybind11;

namespace cdna4::python {
namespace {

std::vector<int64_t> shape_of(const py::array& a) { return std::vector<int64_t>(a.shape(), a.shape() + a.ndim()); }

std::string shape_text(const py::array& a) {
  return fmt::format("({}{})", fmt::join(shape_of(a), ", "), a.ndim() == 1 ? "," : "");
}

py::array four_dimensional(const py::object& x, const char* name, const char* dims) {
  const py::array a = py::module_::import("numpy").attr("asarray")(x);
  if (a.ndim() != 4)
    throw Error(fmt::format("{}: expected a 4-dimensional array {}, got shape {}", name, dims, shape_text(a)));
  return a;
}

bool flag(const py::object& x, const char* name) {
  const py::object numpy_bool = py::module_::import("numpy").attr("bool_");
  if (!py::isinstance<py::bool_>(x) && !py::isinstance(x, numpy_bool))
    throw Error(fmt::format("{}: expected True or False, got {}", name, type_name(x)));
  return py::cast<bool>(py::bool_(x));
}

// The tensor read in place (bf16 bit patterns whose strides the kernel can
// take) or a packed BSHD copy; sets the problem's span and strides.
void tensor(const py::array& a, const char* name, py::array& keep, std::vector<uint8_t>& copy, HostBytes& bytes,
            std::optional<TensorStrides>& strides) {
  const bool bits = a.dtype().kind() == 'u' && a.itemsize() == 2 && a.dtype().attr("isnative").cast<bool>();
  bool in_place = bits && a.size() > 0 && a.strides(3) == 2;
  int64_t last = 0;  // byte offset of the last element
  for (int i = 0; in_place && i < 4; ++i) {
    in_place = a.strides(i) >= 0 && a.strides(i) % 2 == 0;
    last += (a.shape(i) - 1) * a.strides(i);
  }
  if (!in_place) {
    copy = element_bytes(a, DataType::bf16, name);
    bytes = copy;
    strides.reset();  // packed BSHD
    return;
  }
  keep = a;
  bytes = HostBytes(static_cast<const uint8_t*>(a.data()), size_t(last + 2));
  strides = TensorStrides{a.strides(0) / 2, a.strides(1) / 2, a.strides(2) / 2};
}

}  // namespace

AttentionHost attention_problem(const py::object& q_arg, const py::object& k_arg, const py::object& v_arg,
                                const py::object& causal, const py::object& scale, const py::object& return_lse) {
  const py::array q = four_dimensional(q_arg, "q", "[B, Nq, H, D]");
  const py::array k = four_dimensional(k_arg, "k", "[B, Nk, Hkv, D]");
  const py::array v = four_dimensional(v_arg, "v", "[B, Nk, Hkv, D]");
  if (shape_of(k) != shape_of(v))
    throw Error(fmt::format("k and v must have one shape [B, Nk, Hkv, D], got k {} and v {}", shape_text(k),
                            shape_text(v)));
  if (q.shape(0) != k.shape(0) || q.shape(3) != k.shape(3))
    throw Error(fmt::format("q {} and k {} must agree on B (axis 0) and D (axis 3)", shape_text(q), shape_text(k)));
  AttentionHost host;
  AttentionShape& s = host.problem.shape;
  s.batch = q.shape(0), s.seqlen_q = q.shape(1), s.heads = q.shape(2), s.dim = q.shape(3);
  s.seqlen_k = k.shape(1), s.heads_kv = k.shape(2);
  s.causal = flag(causal, "causal");
  s.lse = flag(return_lse, "return_lse");
  s.out = OutType::f32;
  if (!scale.is_none()) s.scale = float(number(scale, "scale"));
  AttentionProblem& p = host.problem;
  tensor(q, "q", host.q_array, host.q_copy, p.q, p.q_strides);
  tensor(k, "k", host.k_array, host.k_copy, p.k, p.k_strides);
  tensor(v, "v", host.v_array, host.v_copy, p.v, p.v_strides);
  validate(p);
  return host;
}

py::object attention_result(const AttentionProblem& p, const AttentionOutput& out) {
  const AttentionShape& s = p.shape;
  py::array_t<float> o({s.batch, s.seqlen_q, s.heads, s.dim});
  if (out.o.size() != size_t(o.nbytes())) throw Error("attention: the run's O has an unexpected size");
  std::memcpy(o.mutable_data(), out.o.data(), out.o.size());
  if (!s.lse) return std::move(o);
  py::array_t<float> lse({s.batch, s.heads, s.seqlen_q});
  if (out.lse.size() != size_t(lse.nbytes())) throw Error("attention: the run's LSE has an unexpected size");
  std::memcpy(lse.mutable_data(), out.lse.data(), out.lse.size());
  return py::make_tuple(o, lse);
}

}  // namespace cdna4::python
