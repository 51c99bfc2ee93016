#pragma once
// What compiles, launches and the timing model report, as Python dicts.
#include <pybind11/pybind11.h>

#include <cstdint>

#include "cdna4/gemm.hpp"

namespace cdna4::python {

pybind11::dict stats_dict(const CompileStats& st);
pybind11::dict launch_dict(const LaunchStats& st);
// A model run of an M x N x K GEMM: the launch's figures, the compile stats,
// TFLOP/s, cycles, L2 hit rate, the steady state's MFMA utilization (None
// without a timeline or a loop) and the stall shares.
pybind11::dict model_dict(const GemmRun& run, int64_t m, int64_t n, int64_t k);

}  // namespace cdna4::python
