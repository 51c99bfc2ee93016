// cdna4jit: the Python face of the C++ API (include/cdna4). Schedules, the
// verifier, compile, devices and a NumPy GEMM; C++ errors become
// cdna4jit.Error / cdna4jit.ScheduleError with the C++ message. The GIL is
// released while a kernel compiles or runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <mutex>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "steady_state.hpp"
#include "cdna4/error.hpp"
#include "cdna4/gemm.hpp"
#include "cdna4/reference.hpp"
#include "cdna4/runtime.hpp"
#include "cdna4/schedule.hpp"
#include "vocabulary/rows.hpp"

namespace py = pybind11;
using namespace cdna4;

namespace {

py::object json_module() { return py::module_::import("json"); }
py::object to_python(const std::string& json_text) { return json_module().attr("loads")(json_text); }

// A dict, a JSON text or a path.
Schedule load_any(const py::object& source) {
  if (py::isinstance<Schedule>(source)) return source.cast<Schedule>();
  if (py::isinstance<py::dict>(source))
    return parse_schedule(json_module().attr("dumps")(source).cast<std::string>(), "<dict>");
  const std::string text = py::str(py::module_::import("os").attr("fspath")(source));
  if (text.find('{') != std::string::npos) return parse_schedule(text, "<text>");
  return load_schedule(text);
}

// 'float32' / 'bfloat16' / 'float16' (the output types' NumPy names), or a NumPy
// dtype; None: the schedule's types.c.
std::optional<OutType> out_type_named(const py::object& out_dtype) {
  if (out_dtype.is_none()) return std::nullopt;
  const std::string name = py::isinstance<py::str>(out_dtype)
                               ? out_dtype.cast<std::string>()
                               : std::string(py::str(py::dtype::from_args(out_dtype).attr("name")));
  std::string expected;
  for (const vocabulary::OutTypeRow& row : vocabulary::kOutTypes) {
    if (row.numpy == name) return row.value;
    expected += fmt::format("{}'{}'{}", expected.empty() ? "" : ", ", row.numpy,
                            row.value == OutType::bf16 ? " (returned as uint16 bit patterns)" : "");
  }
  throw Error(fmt::format("out_dtype '{}': expected one of {}", name, expected));
}

// NumPy has no bfloat16: bf16 results come back as their uint16 bit patterns.
py::dtype numpy_dtype(OutType out) {
  return out == OutType::bf16 ? py::dtype::of<uint16_t>() : py::dtype(std::string(vocabulary::row(out).numpy));
}

py::dict stats_dict(const CompileStats& st) {
  py::dict d;
  d["parse_plan_verify_ms"] = st.parse_plan_verify_ms;
  d["lower_ms"] = st.lower_ms;
  d["assemble_ms"] = st.assemble_ms;
  d["link_ms"] = st.link_ms;
  d["total_ms"] = st.total_ms;
  d["cached"] = st.cached;
  d["instructions"] = st.instructions;
  d["mfma"] = st.mfma;
  d["vgprs"] = st.vgprs;
  d["agprs"] = st.agprs;
  d["sgprs"] = st.sgprs;
  d["lds_bytes"] = st.lds_bytes;
  d["waves_per_simd"] = st.waves_per_simd;
  return d;
}

py::dict launch_dict(const LaunchStats& st) {
  py::dict d;
  d["seconds"] = st.seconds;
  d["instructions"] = st.instructions;
  d["mfma_macs"] = st.mfma_macs;
  py::list races;
  for (const RaceReport& r : st.races) races.append(r.what);
  d["races"] = races;
  if (st.model) {
    d["modeled_seconds"] = st.model->seconds;
    d["modeled_mfma_utilization"] = st.model->mfma_utilization;
    d["modeled_bound"] = st.model->bound;
  }
  return d;
}

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

std::vector<uint8_t> bytes_of(const py::array& a) {
  const py::array c = py::array::ensure(a, py::array::c_style);
  if (!c) throw Error("expected an array that NumPy can lay out C-contiguously");
  std::vector<uint8_t> out(size_t(c.nbytes()));
  std::memcpy(out.data(), c.data(), out.size());
  return out;
}

// One operand as the schedule's element type, packed: uint16 bit patterns for
// bf16 / f16, float16 for f16, uint8 codes for 8-bit types, or float32 values
// rounded to nearest even into the type.
std::vector<uint8_t> operand_bytes(const py::array& a, DataType type, const char* name) {
  const std::string kind = py::str(a.dtype().attr("name"));
  if (kind == "float32" || kind == "float64") {
    const py::array_t<float, py::array::c_style | py::array::forcecast> f(a);
    if (type == DataType::bf16) {  // the common case, without the generic encoder's per-element dispatch
      std::vector<uint8_t> out(size_t(f.size()) * 2);
      for (size_t i = 0; i < size_t(f.size()); ++i) {
        const uint16_t x = float_to_bf16(f.data()[i]);
        std::memcpy(&out[2 * i], &x, 2);
      }
      return out;
    }
    std::vector<uint32_t> codes(size_t(f.size()));
    for (size_t i = 0; i < codes.size(); ++i) codes[i] = encode_element(type, f.data()[i]);
    return pack_elements(type, codes);
  }
  const int bits = element_bits(type);
  const bool matches = (bits == 16 && (kind == "uint16" || (kind == "float16" && type == DataType::f16))) ||
                       (bits == 8 && kind == "uint8") || (bits < 8 && kind == "uint8");
  if (!matches)
    throw Error(fmt::format("{}: dtype {} does not hold {} elements; pass float32 values (rounded to nearest even) "
                            "or {} bit patterns", name, kind, to_string(type), bits == 16 ? "uint16" : "uint8 packed"));
  return bytes_of(a);
}

// How an (rows x cols) array is stored: C order is row-major, Fortran order is
// its transpose row-major; anything else is refused (no hidden copy).
bool stored_transposed(const py::array& a, const char* name) {
  if (a.ndim() != 2) throw Error(fmt::format("{}: expected a 2-D array, got {} dimensions", name, a.ndim()));
  const auto flags = a.flags();
  if (flags & py::array::c_style) return false;
  if (flags & py::array::f_style) return true;
  throw Error(fmt::format("{}: neither C- nor Fortran-contiguous; pass a contiguous array (numpy.ascontiguousarray)", name));
}

py::array gemm(const py::array& a, const py::array& b, const py::object& schedule, const py::object& device,
               const py::object& out_dtype) {
  const Schedule s = load_any(schedule);
  const bool a_t = stored_transposed(a, "a"), b_t = stored_transposed(b, "b");
  const int64_t m = a.shape(0), k = a.shape(1), n = b.shape(1);
  if (b.shape(0) != k) throw Error(fmt::format("a is {} x {} but b is {} x {}: K differs", m, k, b.shape(0), n));
  // A C-order (M, K) is A "n"; a Fortran-order one is K x M row-major, "t".
  // B C-order (K, N) is B "n"; Fortran-order is N x K row-major, "t".
  GemmProblem problem;
  problem.shape.m = m;
  problem.shape.n = n;
  problem.shape.k = k;
  problem.shape.out = out_type_named(out_dtype);
  problem.layout = a_t ? (b_t ? Layout::tt : Layout::tn) : (b_t ? Layout::nt : Layout::nn);
  const auto to_memory_order = [](const py::array& x, bool t) { return t ? py::array(x.attr("T")) : x; };
  const std::vector<uint8_t> ab = operand_bytes(to_memory_order(a, a_t), s.type_a, "a");
  const std::vector<uint8_t> bb = operand_bytes(to_memory_order(b, b_t), s.type_b, "b");
  problem.a = ab;
  problem.b = bb;
  const OutType out = output_type(s, problem.shape.out);
  PyDevice* dev = py::isinstance<PyDevice>(device) ? device.cast<PyDevice*>() : nullptr;
  std::optional<Device> own;
  if (!dev) own = Device::open(device.cast<std::string>());
  verify_or_raise(s);
  GemmRun run;
  {
    py::gil_scoped_release release;
    run = run_gemm(dev ? dev->device : *own, s, problem);
  }
  py::array result(numpy_dtype(out), std::vector<py::ssize_t>{m, n});
  std::memcpy(result.mutable_data(), run.c.data(), run.c.size());
  return result;
}

}  // namespace

PYBIND11_MODULE(cdna4jit, mod) {
  mod.doc() = "cdna4 JIT: GEMM schedules -> verified gfx950 kernels, run on the emulator or a gfx950 (HSA).";
  mod.attr("__version__") = cdna4::version();
  static py::exception<Error> error(mod, "Error");
  schedule_error_type = py::exception<ScheduleError>(mod, "ScheduleError", error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ScheduleError& e) {
      PyErr_SetString(schedule_error_type.ptr(), e.what());
    } catch (const Error& e) {
      PyErr_SetString(error.ptr(), e.what());
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

  mod.def("load_schedule", &load_any, py::arg("source"),
          "A schedule from a path, JSON text or a dict (its JSON form). Raises ScheduleError naming the field.");
  mod.def("verify", [](const py::object& s) { return verify_dict(load_any(s)); }, py::arg("schedule"),
          "Plans and verifies: {'accepted', 'findings': [{'rule', 'op', 'message'}], 'k_tiles_checked', 'planned'}.");

  py::class_<PyKernel>(mod, "Kernel", "A compiled GEMM kernel (an HSA code object).")
      .def_property_readonly("name", [](const PyKernel& k) { return k.kernel.kernel.name(); })
      .def_property_readonly("assembly", [](const PyKernel& k) { return k.kernel.assembly; })
      .def_property_readonly("hsaco", [](const PyKernel& k) {
        const auto& h = k.kernel.kernel.hsaco();
        return py::bytes(reinterpret_cast<const char*>(h.data()), h.size());
      })
      .def_property_readonly("stats", [](const PyKernel& k) { return stats_dict(k.kernel.stats); })
      .def_property_readonly("grid", [](const PyKernel& k) { return py::make_tuple(k.kernel.grid.x, k.kernel.grid.y, k.kernel.grid.z); })
      .def_property_readonly("block", [](const PyKernel& k) { return k.kernel.block.x; })
      .def_property_readonly("shape", [](const PyKernel& k) {
        return py::make_tuple(k.kernel.shape.m, k.kernel.shape.n, k.kernel.shape.k);
      })
      .def_property_readonly("layout", [](const PyKernel& k) { return std::string(to_string(k.kernel.schedule.layout)); });

  mod.def(
      "compile",
      [](const py::object& schedule, int64_t m, int64_t n, int64_t k, const py::object& out_dtype,
         std::optional<std::string> layout, bool verify) {
        const Schedule s = load_any(schedule);
        PyKernel out;
        GemmShape shape;
        shape.m = m;
        shape.n = n;
        shape.k = k;
        shape.out = out_type_named(out_dtype);
        CompileOptions options;
        options.keep_assembly = true;
        options.verify = verify;
        if (layout) options.layout = parse<Layout>(*layout);
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
      .def(py::init([](const std::string& name, uint64_t seed, bool instant, unsigned threads,
                       const std::string& mfma_policy) {
             EmulatorConfig config;
             config.seed = seed;
             config.instant_completion = instant;
             config.threads = threads;
             config.mfma_policy = parse<MfmaPolicy>(mfma_policy);
             return PyDevice{Device::open(name, config)};
           }),
           py::arg("name") = "emulator", py::kw_only(), py::arg("seed") = 1, py::arg("instant") = false,
           py::arg("threads") = 0, py::arg("mfma_policy") = to_string(MfmaPolicy::fp32_fma_chain_k_order),
           "mfma_policy: how the emulator's MFMAs add, 'fp32-fma-chain-k-order' or 'cdna3-fused-groups' "
           "(docs/emulator.md, 'MFMA arithmetic policies').")
      .def_property_readonly("name", [](const PyDevice& d) { return d.device.name(); })
      .def(
          "launch",
          [](PyDevice& d, const PyKernel& k, const py::array& a, const py::array& b) {
            const std::vector<uint8_t> ab = bytes_of(a), bb = bytes_of(b);
            const GemmShape& sh = k.kernel.shape;
            const OutType out = *sh.out;
            GemmProblem problem;
            problem.shape = sh;
            problem.layout = k.kernel.schedule.layout;
            problem.a = ab;
            problem.b = bb;
            GemmRun run;
            {
              py::gil_scoped_release release;
              run = run_gemm(d.device, k.kernel, problem);
            }
            py::array c(numpy_dtype(out), std::vector<py::ssize_t>{sh.m, sh.n});
            const size_t elem = size_t(element_bytes(out)), row = size_t(sh.n) * elem;
            for (int64_t i = 0; i < sh.m; ++i)
              std::memcpy(static_cast<uint8_t*>(c.mutable_data()) + size_t(i) * row,
                          run.c.data() + size_t(i * sh.c_ld()) * elem, row);
            return py::make_tuple(c, launch_dict(run.launch));
          },
          py::arg("kernel"), py::arg("a"), py::arg("b"),
          "Runs the kernel on A and B given as the kernel's layout stores them (raw element bits, e.g. uint16 for bf16). "
          "Returns (C as an M x N array, launch stats).");

  mod.def("gemm", &gemm, py::arg("a"), py::arg("b"), py::kw_only(), py::arg("schedule"),
          py::arg("device") = "emulator", py::arg("out_dtype") = py::none(),
          "C = A @ B with A (M, K) and B (K, N) NumPy arrays. C order or Fortran order each (Fortran order is read as "
          "the transposed layout, no copy of the layout); bf16 as uint16 bit patterns, f16 as float16, 8-bit types as "
          "uint8 codes, or float32 values rounded to nearest even into the schedule's types. out_dtype 'float32', "
          "'bfloat16' (uint16 bit patterns) or 'float16'; default: the schedule's types.c.");

  mod.def(
      "model",
      [](const py::object& schedule, int64_t m, int64_t n, int64_t k, const py::object& out_dtype,
         const py::object& layout) {
        const Schedule s = load_any(schedule);
        GemmShape shape{m, n, k};
        shape.out = out_type_named(out_dtype);
        CompileOptions options;
        if (!layout.is_none()) options.layout = parse<Layout>(layout.cast<std::string>());
        GemmKernel kernel;
        LaunchStats launch;
        {
          py::gil_scoped_release release;
          kernel = compile(s, shape, options);
          EmulatorConfig config;
          config.model_only = true;  // only the workgroups the model simulates run
          config.model_timeline = true;
          config.threads = 1;
          Device device = Device::model(config);
          const Layout l = options.layout.value_or(s.layout);
          auto zeros = [&](int64_t bytes) {
            Buffer b = device.alloc(size_t(std::max<int64_t>(bytes, 16)));
            b.fill_zero();
            return b;
          };
          std::vector<Arg> args = {
              zeros(shape.read_elements(l, Operand::a, element_bits(s.type_a)) * element_bits(s.type_a) / 8),
              zeros(shape.read_elements(l, Operand::b, element_bits(s.type_b)) * element_bits(s.type_b) / 8),
              zeros(m * n * element_bytes(output_type(s, shape.out)))};
          if (s.scaled) {  // E8M0 scales: a byte per 32 elements of K, per row of A and column of B
            args.push_back(zeros(m * k / 32));
            args.push_back(zeros(n * k / 32));
          }
          launch = device.launch(kernel.kernel, kernel.grid, kernel.block, args);
        }
        py::dict d = launch_dict(launch);
        const ModelReport& r = *launch.model;
        d["compile"] = stats_dict(kernel.stats);
        d["tflops"] = 2.0 * double(m) * double(n) * double(k) / r.seconds / 1e12;
        d["cycles"] = r.cycles;
        d["l2_hit_rate"] = r.l2_hit_rate;
        const tools::TimelineWindow window = tools::steady_state_window(r);
        d["steady_state_mfma_utilization"] =
            window.steady_state ? py::object(py::float_(tools::steady_state_mfma_utilization(r, window))) : py::none();
        py::dict stalls;
        const ModelStallShares& st = r.stalls;
        for (auto [name, share] : {std::pair{"issued", st.issued}, {"vmcnt", st.vmcnt}, {"lgkmcnt", st.lgkmcnt},
                                   {"barrier", st.barrier}, {"mfma_dependency", st.mfma_dependency},
                                   {"mfma_busy", st.mfma_busy}, {"issue", st.issue}, {"other", st.other}})
          stalls[name] = share;
        d["stalls"] = stalls;
        return d;
      },
      py::arg("schedule"), py::arg("m"), py::arg("n"), py::arg("k"), py::kw_only(), py::arg("out_dtype") = "bfloat16",
      py::arg("layout") = py::none(),
      "Compiles the schedule for M x N x K and runs it on the timing model (only the workgroups the model simulates, "
      "zero data): modeled seconds, TFLOP/s, MFMA utilization, the steady state's MFMA utilization (one CU, whole loop "
      "trips; None without a loop), bound, stall shares (of wave time) and the compile stats. Every figure is "
      "modeled, not measured (docs/model.md).");

  mod.def(
      "reference_gemm",
      [](const py::array& a, const py::array& b, const std::string& type_a, const std::string& type_b,
         const py::object& out_dtype, const std::string& mfma_policy) {
        const DataType ta = parse<DataType>(type_a), tb = parse<DataType>(type_b);
        const OutType out = out_type_named(out_dtype).value_or(OutType::f32);
        const MfmaPolicy policy = parse<MfmaPolicy>(mfma_policy);
        const int64_t m = a.shape(0), k = a.shape(1), n = b.shape(1);
        const auto c = reference_gemm(policy, ta, operand_bytes(a, ta, "a"), tb, operand_bytes(b, tb, "b"), m, n, k);
        const auto bits = to_output_bits(c, data_type(out));
        py::array result(numpy_dtype(out), std::vector<py::ssize_t>{m, n});
        std::memcpy(result.mutable_data(), bits.data(), bits.size());
        return result;
      },
      py::arg("a"), py::arg("b"), py::kw_only(), py::arg("type_a") = "bf16", py::arg("type_b") = "bf16",
      py::arg("out_dtype") = "float32", py::arg("mfma_policy") = to_string(MfmaPolicy::fp32_fma_chain_k_order),
      "The CPU reference the emulator matches bit for bit under the same mfma_policy: by default one fp32 FMA "
      "chain per element in k order (docs/emulator.md, 'MFMA arithmetic policies'). A (M, K) and B (K, N) in C "
      "order.");
}
