#include "runtime/model/occupancy.hpp"

#include <algorithm>

#include "common/limits.hpp"
#include "runtime/model/parameters.hpp"

namespace cdna4::model {

Occupancy occupancy(const KernelInfo& kernel, uint32_t workgroup_threads, uint32_t lds_bytes) {
  Occupancy o;
  o.waves_per_workgroup = std::max<uint32_t>(1, (workgroup_threads + gfx950::kWaveSize - 1) / gfx950::kWaveSize);
  // The descriptor's allocation: granules of the unified VGPR+AGPR file.
  const int registers = int(kernel.vgpr_granule_count + 1) * gfx950::kRegisterGranule;
  const gfx950::Occupancy hw = gfx950::occupancy(registers, lds_bytes, int(o.waves_per_workgroup));
  o.waves_per_simd = uint32_t(hw.waves_by_registers);
  const uint32_t by_registers = uint32_t(hw.workgroups_by_registers), by_lds = uint32_t(hw.workgroups_by_lds);
  const uint32_t by_count = as_int(param::kMaxWorkgroupsPerCu);
  o.workgroups_per_cu = std::min({by_registers, by_lds, by_count});
  o.limit = o.workgroups_per_cu == by_registers ? "registers" : o.workgroups_per_cu == by_lds ? "lds" : "workgroups";
  return o;
}

}  // namespace cdna4::model
