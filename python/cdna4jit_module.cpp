// cdna4jit: the Python face of the C++ API (include/cdna4). Schedules, the
// verifier, compile, devices and a NumPy GEMM; C++ errors become
// cdna4jit.Error / ScheduleError / LimitError with the C++ message. The GIL is
// released while a kernel compiles or runs, and Ctrl-C stops a launch
// (module/interruptible.hpp).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "attention_check.hpp"
#include "cdna4/attention.hpp"
#include "cdna4/error.hpp"
#include "cdna4/gemm.hpp"
#include "cdna4/reference.hpp"
#include "cdna4/runtime.hpp"
#include "cdna4/schedule.hpp"
#include "module/arguments.hpp"
#include "module/attention_problem.hpp"
#include "module/host_problem.hpp"
#include "module/interruptible.hpp"
#include "module/reports.hpp"
#include "module/schedule_source.hpp"
#include "shipped_attention.hpp"

namespace py = pybind11;
using namespace cdna4;

namespace {

py::object to_python(const std::string& json_text) { return py::module_::import("json").attr("loads")(json_text); }

py::dict verify_dict(const Schedule& s) {
  const Schedule planned = plan(s);
  const VerifyReport report = verify(planned);
  py::dict d;
  d["accepted"] = report.accepted();
  py::list findings;
  for (const Finding& f : report.findings) {
    py::dict x;
    x["rule"] = f.rule;
    x["op"] = f.op;
    x["message"] = f.message;
    findings.append(x);
  }
  d["findings"] = findings;
  d["k_tiles_checked"] = report.k_tiles_checked;
  d["planned"] = to_python(to_json(planned));
  return d;
}

py::object schedule_error_type;

// Plans and verifies (once per schedule text); a rejection raises ScheduleError with the findings.
void verify_or_raise(const Schedule& s) {
  static std::mutex mutex;
  static std::set<std::string> accepted;
  const std::string key = to_json(s);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (accepted.count(key)) return;
  }
  const VerifyReport report = verify(plan(s));
  if (report.accepted()) {
    std::lock_guard<std::mutex> lock(mutex);
    accepted.insert(key);
    return;
  }
  py::object error = schedule_error_type(fmt::format("schedule {} rejected by the verifier:\n{}", s.name, report.summary()));
  py::list findings;
  for (const Finding& f : report.findings) findings.append(py::make_tuple(f.rule, f.op, f.message));
  error.attr("findings") = findings;
  PyErr_SetObject(schedule_error_type.ptr(), error.ptr());
  throw py::error_already_set();
}

struct PyKernel {
  GemmKernel kernel;
};

struct PyDevice {
  Device device;
};

// A cdna4jit.Device, or a name opened for this call.
struct DeviceArg {
  std::optional<Device> own;
  Device* device;
  explicit DeviceArg(const py::object& x) {
    if (py::isinstance<PyDevice>(x)) {
      device = &x.cast<PyDevice&>().device;
    } else {
      own = Device::open(python::device_name(x));
      device = &*own;
    }
  }
};

python::GemmExtras extras_of(const py::object& a_scale, const py::object& b_scale, const py::object& c,
                             const py::object& bias, const py::object& alpha, const py::object& beta) {
  return {a_scale, b_scale, c, bias, alpha, beta};
}

py::array gemm(const py::object& a, const py::object& b, const py::object& schedule, const py::object& device,
               const py::object& out_dtype, const py::object& a_scale, const py::object& b_scale, const py::object& c,
               const py::object& bias, const py::object& alpha, const py::object& beta) {
  const Schedule s = python::schedule_from(schedule);
  const python::HostProblem hp =
      python::logical_problem(s, a, b, extras_of(a_scale, b_scale, c, bias, alpha, beta), python::out_type_named(out_dtype));
  DeviceArg dev(device);
  verify_or_raise(s);
  const GemmRun run = python::run_interruptible([&](const std::atomic<bool>* cancel) {
    LaunchOptions launch;
    launch.cancel = cancel;
    return run_gemm(*dev.device, s, hp.problem, {}, launch);
  });
  return python::c_array(output_type(s, hp.problem.shape.out), hp.problem.shape.m, hp.problem.shape.n, run.c);
}

// A compile for M x N x K run on the timing model with zero data (only the
// workgroups the model simulates). The timeline (for the steady state) costs
// memory in proportion to the instructions modeled: `timeline` False leaves it out.
py::dict model(const py::object& schedule, int64_t m, int64_t n, int64_t k, const py::object& out_dtype,
               const py::object& layout, bool timeline) {
  const Schedule s = python::schedule_from(schedule);
  const GemmShape shape = python::shape_named(m, n, k, out_dtype);
  CompileOptions options;
  options.layout = python::layout_named(layout);
  const GemmRun run = python::run_interruptible([&](const std::atomic<bool>* cancel) {
    const GemmKernel kernel = compile(s, shape, options);
    EmulatorConfig config;
    config.model_only = true;  // only the workgroups the model simulates run
    config.model_timeline = timeline;
    config.threads = 1;
    Device device = Device::model(config);
    const python::ZeroProblem zeros(kernel);
    LaunchOptions launch;
    launch.cancel = cancel;
    return run_gemm(device, kernel, zeros.problem(), launch);
  });
  return python::model_dict(run, m, n, k);
}

py::array reference_gemm_py(const py::object& a, const py::object& b, const py::object& type_a, const py::object& type_b,
                            const py::object& out_dtype, const std::string& mfma_policy, const py::object& schedule,
                            const python::GemmExtras& extras) {
  Schedule s;
  if (!schedule.is_none()) {
    if (!type_a.is_none() || !type_b.is_none())
      throw Error("reference_gemm: give type_a= and type_b=, or schedule=, not both (the schedule has its types)");
    s = python::schedule_from(schedule);
  } else {
    s.name = "reference";
    const auto type_named = [](const py::object& x, const char* what) {
      if (x.is_none()) return DataType::bf16;
      if (!py::isinstance<py::str>(x)) throw Error(fmt::format("{}: expected an element type name, got {}", what, python::type_name(x)));
      return parse<DataType>(x.cast<std::string>());
    };
    s.type_a = type_named(type_a, "type_a");
    s.type_b = type_named(type_b, "type_b");
    s.scaled = !extras.a_scale.is_none() || !extras.b_scale.is_none();
    if (s.scaled && (element_bits(s.type_a) > 8 || element_bits(s.type_b) > 8))
      throw Error(fmt::format("reference_gemm: MX scales are for 8-, 6- and 4-bit types; type_a is {} and type_b {}",
                              to_string(s.type_a), to_string(s.type_b)));
  }
  const MfmaPolicy policy = parse<MfmaPolicy>(mfma_policy);
  const python::HostProblem hp = python::logical_problem(s, a, b, extras, python::out_type_named(out_dtype));
  std::vector<uint8_t> c;
  {
    py::gil_scoped_release release;
    c = reference(s, hp.problem, policy);
  }
  return python::c_array(output_type(s, hp.problem.shape.out), hp.problem.shape.m, hp.problem.shape.n, c);
}

// The schedule attention() runs: the caller's, or the shipped one for D (64 or 128, validated).
AttentionSchedule attention_schedule(const py::object& schedule, int64_t dim) {
  if (!schedule.is_none()) return python::attention_schedule_from(schedule);
  return parse_attention_schedule(dim == 64 ? python::kShippedAttentionD64 : python::kShippedAttentionD128,
                                  fmt::format("schedules/attention/attn_fwd_d{}.json", dim));
}

py::object attention_forward(const py::object& q, const py::object& k, const py::object& v,
                             const py::object& schedule, const py::object& causal, const py::object& scale,
                             const py::object& device, const py::object& return_lse) {
  const python::AttentionHost host = python::attention_problem(q, k, v, causal, scale, return_lse);
  const AttentionSchedule s = attention_schedule(schedule, host.problem.shape.dim);
  DeviceArg dev(device);
  const AttentionRun run = python::run_interruptible([&](const std::atomic<bool>* cancel) {
    LaunchOptions launch;
    launch.cancel = cancel;
    return run_attention(*dev.device, s, host.problem, {}, launch);
  });
  return python::attention_result(host.problem, run.out);
}

py::object reference_attention(const py::object& q, const py::object& k, const py::object& v,
                               const py::object& schedule, const py::object& causal, const py::object& scale,
                               const py::object& return_lse, const std::string& mfma_policy) {
  const python::AttentionHost host = python::attention_problem(q, k, v, causal, scale, return_lse);
  const AttentionBlocks blocking = blocks(attention_schedule(schedule, host.problem.shape.dim));
  const MfmaPolicy policy = parse<MfmaPolicy>(mfma_policy);
  AttentionOutput out;
  {
    py::gil_scoped_release release;
    out = reference(host.problem, blocking, policy);
  }
  return python::attention_result(host.problem, out);
}

// docs/attention.md's tolerance against float64 for attention()'s fp32 O and
// LSE on these inputs (tools/attention_check.hpp, as cdna4-attn --check applies it).
py::object attention_tolerance(const py::object& q, const py::object& k, const py::object& v, const py::object& causal,
                               const py::object& scale) {
  const python::AttentionHost host = python::attention_problem(q, k, v, causal, scale, py::bool_(true));
  const AttentionShape& s = host.problem.shape;
  tools::Float64Tolerance t;
  {
    py::gil_scoped_release release;
    t = tools::float64_tolerance(host.problem, reference_f64(host.problem));
  }
  py::array_t<double> o({s.batch, s.seqlen_q, s.heads, s.dim}), lse({s.batch, s.heads, s.seqlen_q});
  std::memcpy(o.mutable_data(), t.o.data(), t.o.size() * sizeof(double));
  std::memcpy(lse.mutable_data(), t.lse.data(), t.lse.size() * sizeof(double));
  return py::make_tuple(o, lse);
}

}  // namespace

PYBIND11_MODULE(cdna4jit, mod) {
  mod.doc() = "cdna4 JIT: GEMM schedules -> verified gfx950 kernels, run on the emulator or a gfx950 (HSA).";
  mod.attr("__version__") = cdna4::version();
  static py::exception<Error> error(mod, "Error");
  schedule_error_type = py::exception<ScheduleError>(mod, "ScheduleError", error.ptr());
  static py::exception<LimitError> limit_error(mod, "LimitError", error.ptr());
  // A message may hold a path's bytes that are no UTF-8: shown escaped, never lost.
  static const auto set_error = [](PyObject* type, const char* what) {
    const py::object text = py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(what, Py_ssize_t(std::strlen(what)), "backslashreplace"));
    PyErr_SetObject(type, text.ptr());
  };
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ScheduleError& e) {
      set_error(schedule_error_type.ptr(), e.what());
    } catch (const LimitError& e) {
      set_error(limit_error.ptr(), e.what());
    } catch (const Error& e) {
      set_error(error.ptr(), e.what());
    }
  });

  py::class_<Schedule>(mod, "Schedule", "A GEMM schedule (schedules/README.md).")
      .def_readonly("name", &Schedule::name)
      .def_property_readonly("layout", [](const Schedule& s) { return std::string(to_string(s.layout)); })
      .def_property_readonly("tile", [](const Schedule& s) { return py::make_tuple(s.tile_m, s.tile_n, s.tile_k); })
      .def_readonly("waves", &Schedule::waves)
      .def("to_json", [](const Schedule& s) { return to_json(s); }, "The schedule as JSON text.")
      .def("to_dict", [](const Schedule& s) { return to_python(to_json(s)); }, "The schedule as a dict.")
      .def("__repr__", [](const Schedule& s) { return "<cdna4jit.Schedule " + s.name + ">"; });

  mod.def("clear_compile_cache", &clear_compile_cache,
          "Empties the in-process cache of compiled kernels (an LRU of about 64 MiB).");
  mod.def("load_schedule", [](const py::object& source) { return python::schedule_from(source); }, py::arg("source"),
          "A schedule from a path (str, bytes or os.PathLike), JSON text (a str starting with '{') or a dict (its "
          "JSON form). Raises ScheduleError naming the field.");
  mod.def("verify", [](const py::object& s) { return verify_dict(python::schedule_from(s)); }, py::arg("schedule"),
          "Plans and verifies: {'accepted', 'findings': [{'rule', 'op', 'message'}], 'k_tiles_checked', 'planned'}.");

  py::class_<PyKernel>(mod, "Kernel", "A compiled GEMM kernel (an HSA code object).")
      .def_property_readonly("name", [](const PyKernel& k) { return k.kernel.kernel.name(); })
      .def_property_readonly("assembly", [](const PyKernel& k) { return k.kernel.assembly; })
      .def_property_readonly("hsaco", [](const PyKernel& k) {
        const auto& h = k.kernel.kernel.hsaco();
        return py::bytes(reinterpret_cast<const char*>(h.data()), h.size());
      })
      .def_property_readonly("stats", [](const PyKernel& k) { return python::stats_dict(k.kernel.stats); })
      .def_property_readonly("grid", [](const PyKernel& k) { return py::make_tuple(k.kernel.grid.x, k.kernel.grid.y, k.kernel.grid.z); })
      .def_property_readonly("block", [](const PyKernel& k) { return k.kernel.block.x; })
      .def_property_readonly("shape", [](const PyKernel& k) {
        return py::make_tuple(k.kernel.shape.m, k.kernel.shape.n, k.kernel.shape.k);
      })
      .def_property_readonly("layout", [](const PyKernel& k) { return std::string(to_string(k.kernel.schedule.layout)); });

  mod.def(
      "compile",
      [](const py::object& schedule, int64_t m, int64_t n, int64_t k, const py::object& out_dtype,
         const py::object& layout, bool verify) {
        const Schedule s = python::schedule_from(schedule);
        PyKernel out;
        const GemmShape shape = python::shape_named(m, n, k, out_dtype);
        CompileOptions options;
        options.keep_assembly = true;
        options.verify = verify;
        options.layout = python::layout_named(layout);
        if (verify) verify_or_raise(s);
        py::gil_scoped_release release;
        out.kernel = cdna4::compile(s, shape, options);
        return out;
      },
      py::arg("schedule"), py::arg("m"), py::arg("n"), py::arg("k"), py::kw_only(), py::arg("out_dtype") = py::none(),
      py::arg("layout") = py::none(), py::arg("verify") = true,
      "Compiles the schedule for an M x N x K GEMM. out_dtype: 'float32', 'bfloat16' or 'float16' (default: the "
      "schedule's types.c). layout: 'nn', 'nt', 'tn' or 'tt' (default: the schedule's). "
      "Raises ScheduleError (with .findings) when the verifier rejects the schedule.");

  py::class_<PyDevice>(mod, "Device", "Where kernels run: 'emulator' (any machine), 'model' or 'hsa' (a gfx950).")
      .def(py::init([](const py::object& name, uint64_t seed, bool instant, bool timed, unsigned threads,
                       const std::string& mfma_policy, const py::object& time_limit, uint64_t max_instructions,
                       uint64_t max_trace_bytes) {
             EmulatorConfig config;
             config.seed = seed;
             config.instant_completion = instant;
             config.timed = timed;
             config.threads = threads;
             config.mfma_policy = parse<MfmaPolicy>(mfma_policy);
             config.time_limit_seconds = python::time_limit_seconds(time_limit);
             config.max_instructions = max_instructions;
             config.max_trace_bytes = max_trace_bytes;
             return PyDevice{Device::open(python::device_name(name), config)};
           }),
           py::arg("name") = "emulator", py::kw_only(), py::arg("seed") = 1, py::arg("instant") = false,
           py::arg("timed") = false, py::arg("threads") = 0, py::arg("mfma_policy") = to_string(MfmaPolicy::fp32_fma_chain_k_order),
           py::arg("time_limit") = EmulatorConfig{}.time_limit_seconds,
           py::arg("max_instructions") = EmulatorConfig{}.max_instructions,
           py::arg("max_trace_bytes") = EmulatorConfig{}.max_trace_bytes,
           "mfma_policy: how the emulator's MFMAs add, 'fp32-fma-chain-k-order' or 'cdna3-fused-groups' "
           "(docs/emulator.md, 'MFMA arithmetic policies'). timed: waves issue in clock order and memory completes "
           "after gfx950's latencies (deterministic; docs/emulator.md, 'Timed mode'). time_limit: wall-clock seconds one launch may take "
           "(None: no limit) and max_instructions: wave-instructions (0: no limit); a launch past either raises "
           "LimitError. max_trace_bytes: memory the model device may keep for its traces and timeline.")
      .def_property_readonly("name", [](const PyDevice& d) { return d.device.name(); })
      .def(
          "launch",
          [](PyDevice& d, const PyKernel& k, const py::object& a, const py::object& b, const py::object& a_scale,
             const py::object& b_scale, const py::object& c, const py::object& bias, const py::object& alpha,
             const py::object& beta) {
            const python::HostProblem hp =
                python::stored_problem(k.kernel, a, b, extras_of(a_scale, b_scale, c, bias, alpha, beta));
            const GemmRun run = python::run_interruptible([&](const std::atomic<bool>* cancel) {
              LaunchOptions launch;
              launch.cancel = cancel;
              return run_gemm(d.device, k.kernel, hp.problem, launch);
            });
            const GemmShape& sh = k.kernel.shape;
            return py::make_tuple(python::c_array(*sh.out, sh.m, sh.n, run.c), python::launch_dict(run.launch));
          },
          py::arg("kernel"), py::arg("a"), py::arg("b"), py::kw_only(), py::arg("a_scale") = py::none(),
          py::arg("b_scale") = py::none(), py::arg("c") = py::none(), py::arg("bias") = py::none(),
          py::arg("alpha") = py::none(), py::arg("beta") = py::none(),
          "Runs the kernel on A and B given as the kernel's layout stores them (A (M, K) or (K, M), B (K, N) or "
          "(N, K)), elements as gemm() takes them; scales, C input, bias, alpha and beta as for gemm(). "
          "Returns (C as an M x N array, launch stats). Ctrl-C stops the launch (KeyboardInterrupt).");

  mod.def("gemm", &gemm, py::arg("a"), py::arg("b"), py::kw_only(), py::arg("schedule"),
          py::arg("device") = "emulator", py::arg("out_dtype") = py::none(), py::arg("a_scale") = py::none(),
          py::arg("b_scale") = py::none(), py::arg("c") = py::none(), py::arg("bias") = py::none(),
          py::arg("alpha") = py::none(), py::arg("beta") = py::none(),
          "C = act(alpha * A @ B + beta * c + bias) with A (M, K) and B (K, N) NumPy arrays (python/README.md). C "
          "order or Fortran order each (Fortran order is read as the transposed layout). Elements: float16, float32 "
          "or float64 values, rounded once to nearest even into the schedule's types; bf16 / f16 also as uint16 bit "
          "patterns; 8-, 6- and 4-bit types also as uint8 codes, one per element. An MX-scaled schedule takes "
          "a_scale (M, K/32) and b_scale (K/32, N) uint8 E8M0; a schedule's fused epilogue takes c (M, N), bias "
          "(M,) or (N,), alpha (default 1) and beta (default 1 with c). out_dtype 'float32', 'bfloat16' (uint16 bit "
          "patterns) or 'float16'; default: the schedule's types.c. Ctrl-C stops the run (KeyboardInterrupt).");

  mod.def("model", &model, py::arg("schedule"), py::arg("m"), py::arg("n"), py::arg("k"), py::kw_only(),
          py::arg("out_dtype") = "bfloat16", py::arg("layout") = py::none(), py::arg("timeline") = true,
          "Compiles the schedule for M x N x K and runs it on the timing model (only the workgroups the model "
          "simulates, zero data): modeled seconds, TFLOP/s, MFMA utilization, the steady state's MFMA utilization "
          "(one CU, whole loop trips; None without a loop or with timeline=False), bound, stall shares (of wave time) "
          "and the compile stats. timeline=False keeps no per-instruction timeline (memory grows with it). Every "
          "figure is modeled, not measured (docs/model.md).");

  mod.def("attention", &attention_forward, py::arg("q"), py::arg("k"), py::arg("v"), py::kw_only(),
          py::arg("schedule") = py::none(), py::arg("causal") = false, py::arg("scale") = py::none(),
          py::arg("device") = "emulator", py::arg("return_lse") = false,
          "Attention forward O = softmax(scale * q k^T) v (docs/attention.md) with q [B, Nq, H, D], k and v "
          "[B, Nk, Hkv, D] NumPy arrays (H a multiple of Hkv: MHA, GQA, MQA; D 64 or 128): float16 / float32 / "
          "float64 values rounded once to nearest even into bf16, or uint16 bf16 bit patterns (read in place at "
          "their strides when D is contiguous, so BHSD views need no copy). causal: the mask aligned to the "
          "bottom-right corner (a row that sees no key gives O = 0, LSE = -inf). scale: default 1/sqrt(D), held in "
          "fp32. schedule: None picks the shipped attn_fwd_d64 / attn_fwd_d128, else a path, JSON text or a dict. "
          "Returns O float32 [B, Nq, H, D], or (O, LSE) with LSE float32 [B, H, Nq] (natural log) when "
          "return_lse. Ctrl-C stops the run (KeyboardInterrupt).");
  mod.def("reference_attention", &reference_attention, py::arg("q"), py::arg("k"), py::arg("v"), py::kw_only(),
          py::arg("schedule") = py::none(), py::arg("causal") = false, py::arg("scale") = py::none(),
          py::arg("return_lse") = false, py::arg("mfma_policy") = to_string(MfmaPolicy::fp32_fma_chain_k_order),
          "The CPU policy reference attention() matches bit for bit (docs/attention.md, 'The policy reference'), "
          "blocked as the schedule's kernel; arguments and results as attention()'s.");

  mod.def("attention_tolerance", &attention_tolerance, py::arg("q"), py::arg("k"), py::arg("v"), py::kw_only(),
          py::arg("causal") = false, py::arg("scale") = py::none(),
          "docs/attention.md's tolerance against float64 for attention()'s fp32 O and LSE on these inputs "
          "(arguments as attention()'s): (o_tol float64 [B, Nq, H, D], lse_tol float64 [B, H, Nq]); a result is "
          "right when |O - O64| <= o_tol and |LSE - LSE64| <= lse_tol elementwise, O64 and LSE64 the float64 "
          "attention of the same bf16 values (a row that sees no key: O = +0 and LSE = -inf exactly).");

  mod.def(
      "reference_gemm",
      [](const py::object& a, const py::object& b, const py::object& type_a, const py::object& type_b,
         const py::object& out_dtype, const std::string& mfma_policy, const py::object& schedule,
         const py::object& a_scale, const py::object& b_scale, const py::object& c, const py::object& bias,
         const py::object& alpha, const py::object& beta) {
        return reference_gemm_py(a, b, type_a, type_b, out_dtype, mfma_policy, schedule,
                                 extras_of(a_scale, b_scale, c, bias, alpha, beta));
      },
      py::arg("a"), py::arg("b"), py::kw_only(), py::arg("type_a") = py::none(), py::arg("type_b") = py::none(),
      py::arg("out_dtype") = "float32", py::arg("mfma_policy") = to_string(MfmaPolicy::fp32_fma_chain_k_order),
      py::arg("schedule") = py::none(), py::arg("a_scale") = py::none(), py::arg("b_scale") = py::none(),
      py::arg("c") = py::none(), py::arg("bias") = py::none(), py::arg("alpha") = py::none(),
      py::arg("beta") = py::none(),
      "The CPU reference the emulator matches bit for bit under the same mfma_policy: by default one fp32 FMA "
      "chain per element in k order (docs/emulator.md, 'MFMA arithmetic policies'). A (M, K) and B (K, N) as "
      "gemm() takes them, of type_a / type_b (default bf16) with a_scale / b_scale when given; or schedule=, its "
      "types, scales and fused epilogue (c, bias, alpha, beta as for gemm()).");
}
