#pragma once
// From one CU's modeled cycles to the whole device: rounds of resident
// workgroups over all CUs, next to a bound on HBM traffic (docs/model.md
// "Device composition").
#include <cstdint>

#include "cdna4/model_report.hpp"
#include "runtime/model/cu_model.hpp"
#include "runtime/model/occupancy.hpp"

namespace cdna4::model {

struct GridFacts {
  uint64_t workgroups = 1;            // in the whole grid
  uint32_t simulated_workgroups = 1;  // the resident set the CU model ran
  double memory_bytes = 0;            // bytes the grid reads or writes at least once
};

ModelReport compose(CuResult cu, const Occupancy& occupancy, const GridFacts& grid);

}  // namespace cdna4::model
