#pragma once
// From one CU's modeled cycles to the whole device: rounds of resident
// workgroups over all CUs, next to the bandwidth of L2, MALL and HBM and the
// power ceiling of the MFMA pipes (docs/model.md "Device composition").
#include <cstdint>

#include "cdna4/model_report.hpp"
#include "runtime/model/cu_model.hpp"
#include "runtime/model/grid_sample.hpp"
#include "runtime/model/occupancy.hpp"

namespace cdna4::model {

struct GridFacts {
  uint64_t workgroups = 1;            // in the whole grid
  uint32_t simulated_workgroups = 1;  // the resident set the CU model ran
  double memory_bytes = 0;            // bytes the grid reads or writes at least once
  double l2_miss_fraction = 1;        // L2Reuse::miss_fraction of the first round on one XCD
  double read_bytes_per_workgroup = 0;  // distinct lines a traced workgroup reads x line size
};

// Per workgroup, from the sampled resident sets (grid_sample.hpp): the clocks
// it holds its workgroup slot (its resident set's CU cycles), its MFMA pipe
// clocks, and the bytes it reads (distinct lines) and stores.
struct WorkgroupCosts {
  GridEstimate cycles, mfma_cycles, read_bytes, stored_bytes;
  uint32_t sampled = 1;  // workgroups traced in full
};

// Clocks a vector memory access takes: an L2 hit, or a miss served by the
// MALL (when the buffers fit in it) or else by HBM.
uint32_t global_latency(double l2_miss_fraction, double memory_bytes);

// `cu`: the first resident set (its cycles, timeline and, summed over every
// sampled set, the wave time shares).
ModelReport compose(CuResult cu, const Occupancy& occupancy, const GridFacts& grid, const WorkgroupCosts& costs);
// Every workgroup like the simulated resident set `cu`.
ModelReport compose(CuResult cu, const Occupancy& occupancy, const GridFacts& grid);

}  // namespace cdna4::model
