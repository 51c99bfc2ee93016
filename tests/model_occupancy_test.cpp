// Workgroups per CU from registers, LDS and workgroup size.
#include <catch2/catch.hpp>

#include "runtime/model/occupancy.hpp"

using namespace cdna4;

namespace {

KernelInfo with_registers(uint32_t unified_registers) {
  KernelInfo k;
  k.vgpr_granule_count = unified_registers / 8 - 1;  // granules of 8
  return k;
}

}  // namespace

TEST_CASE("model: occupancy from registers, LDS and waves per workgroup", "[model]") {
  // 512 registers per lane: 256 each leaves 2 waves per SIMD, 8 per CU: one 8-wave workgroup.
  auto big = model::occupancy(with_registers(256), 512, 128 * 1024);
  CHECK(big.waves_per_workgroup == 8);
  CHECK(big.waves_per_simd == 2);
  CHECK(big.workgroups_per_cu == 1);
  // 128 registers: 4 waves per SIMD, 16 per CU: four 4-wave workgroups, unless LDS allows fewer.
  CHECK(model::occupancy(with_registers(128), 256, 0).workgroups_per_cu == 4);
  auto lds = model::occupancy(with_registers(128), 256, 64 * 1024);
  CHECK(lds.workgroups_per_cu == 2);
  CHECK(lds.limit == "lds");
  // Few registers: at most 8 waves per SIMD; single-wave workgroups stop at the workgroup limit.
  CHECK(model::occupancy(with_registers(32), 64, 0).waves_per_simd == 8);
  CHECK(model::occupancy(with_registers(32), 64, 0).workgroups_per_cu == 16);
}
