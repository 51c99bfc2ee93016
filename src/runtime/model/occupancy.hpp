#pragma once
// How many workgroups of a kernel one CU holds at once, and what limits it.
#include <cstdint>
#include <string>

#include "cdna4/code_object.hpp"

namespace cdna4::model {

struct Occupancy {
  uint32_t waves_per_workgroup = 1;
  uint32_t waves_per_simd = 1;      // the register file's limit
  uint32_t workgroups_per_cu = 1;
  std::string limit;                // "registers", "lds", "waves" or "workgroups"
};

Occupancy occupancy(const KernelInfo& kernel, uint32_t workgroup_threads, uint32_t lds_bytes);

}  // namespace cdna4::model
