#include "reports.hpp"

#include <utility>

#include "steady_state.hpp"

namespace py = pybind11;

namespace cdna4::python {

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

py::dict model_dict(const GemmRun& run, int64_t m, int64_t n, int64_t k) {
  py::dict d = launch_dict(run.launch);
  const ModelReport& r = *run.launch.model;
  d["compile"] = stats_dict(run.compile);
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
}

}  // namespace cdna4::python
