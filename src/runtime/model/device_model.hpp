#pragma once
// From one CU's modeled cycles to the whole device: rounds of resident
// workgroups over all CUs, next to the bandwidth of L2, MALL and HBM and the
// power ceiling of the MFMA pipes (docs/model.md "Device composition").
#include <array>
#include <cstdint>

#include "cdna4/model_report.hpp"
#include "runtime/model/cu_model.hpp"
#include "runtime/model/grid_sample.hpp"
#include "runtime/model/occupancy.hpp"
#include "runtime/model/parameters.hpp"

namespace cdna4::model {

// The model's fitted parameters (docs/model.md "Calibration protocol");
// the defaults are parameters.hpp's values.
struct Fitted {
  double mac_energy_16bit = param::kMacEnergy16.value;  // J per MAC
  double mac_energy_8bit = param::kMacEnergy8.value;
  double launch_seconds = param::kLaunchSeconds.value;
};

struct GridFacts {
  uint64_t workgroups = 1;            // in the whole grid
  uint32_t simulated_workgroups = 1;  // the resident set the CU model ran
  double memory_bytes = 0;            // bytes the grid reads or writes at least once
  double l2_miss_fraction = 1;        // L2Reuse::miss_fraction of the first round on one XCD
  double read_bytes_per_workgroup = 0;  // distinct lines a traced workgroup reads x line size
  uint32_t waves_per_workgroup = 1;
};

// Per workgroup, from the sampled resident sets (grid_sample.hpp): the clocks
// it holds its workgroup slot (its resident set's CU cycles), its MFMA pipe
// clocks and multiply-adds by operand width, and the bytes it reads (distinct
// lines) and stores.
struct WorkgroupCosts {
  GridEstimate cycles, mfma_cycles, read_bytes, stored_bytes;
  std::array<GridEstimate, kMacClasses> macs;
  uint32_t sampled = 1;  // workgroups traced in full
};

// Clocks a vector memory access takes: an L2 hit, or a miss. A miss is a first
// touch (from HBM) for the share of the grid's missed bytes that are the
// buffers' own bytes; the rest is served by the MALL when the buffers fit in it,
// else by HBM. `grid_read_bytes`: what all workgroups read.
uint32_t global_latency(double l2_miss_fraction, double memory_bytes, double grid_read_bytes);

// `cu`: the first resident set (its cycles, timeline and, summed over every
// sampled set, the wave time shares); `costs`: every workgroup's.
ModelReport compose(CuResult cu, const Occupancy& occupancy, const GridFacts& grid, const WorkgroupCosts& costs,
                    const Fitted& fitted = {});
// Every workgroup like the simulated resident set `cu`.
ModelReport compose(CuResult cu, const Occupancy& occupancy, const GridFacts& grid, const Fitted& fitted = {});

// The modeled time of a report composed with other fitted values: the
// calibration refits them without running the kernels again.
double recompose_seconds(const ModelReport& r, const Fitted& fitted);

}  // namespace cdna4::model
