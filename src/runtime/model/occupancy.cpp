#include "runtime/model/occupancy.hpp"

#include <algorithm>

#include "runtime/model/parameters.hpp"

namespace cdna4::model {

Occupancy occupancy(const KernelInfo& kernel, uint32_t workgroup_threads, uint32_t lds_bytes) {
  Occupancy o;
  o.waves_per_workgroup = std::max<uint32_t>(1, (workgroup_threads + 63) / 64);
  // The descriptor's allocation: granules of 8 of the unified VGPR+AGPR file.
  const uint32_t registers = (kernel.vgpr_granule_count + 1) * 8;
  o.waves_per_simd = std::clamp<uint32_t>(as_int(param::kVgprsPerLane) / registers, 1, as_int(param::kMaxWavesPerSimd));
  const uint32_t simds = as_int(param::kSimdsPerCu);
  // Waves spread over the SIMDs round-robin, so the CU's wave slots are shared by all.
  const uint32_t by_registers = std::max<uint32_t>(1, simds * o.waves_per_simd / o.waves_per_workgroup);
  const uint32_t by_lds = lds_bytes ? std::max<uint32_t>(1, as_int(param::kLdsBytesPerCu) / lds_bytes) : ~0u;
  const uint32_t by_count = as_int(param::kMaxWorkgroupsPerCu);
  o.workgroups_per_cu = std::min({by_registers, by_lds, by_count});
  o.limit = o.workgroups_per_cu == by_registers ? "registers" : o.workgroups_per_cu == by_lds ? "lds" : "workgroups";
  return o;
}

}  // namespace cdna4::model
