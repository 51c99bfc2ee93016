#pragma once
// gfx950's hardware limits: the one place each number is written. The code
// generator checks kernels against them, the runtime and the emulator check code
// objects and launches against them, the timing model computes occupancy with them.
#include <algorithm>
#include <cstdint>

namespace cdna4::gfx950 {

// ---- Device (AMD Instinct MI355X data sheet) ----------------------------------------------------------------------
inline constexpr int kComputeUnits = 256;  // 8 XCDs x 32 CUs
inline constexpr int kXcds = 8;            // workgroups are dispatched round-robin over them

// ---- Compute unit (AMD CDNA 4 ISA guide, ch. 1-3; LLVM AMDGPUUsage, "gfx950") ---------------------------------
inline constexpr int kSimdsPerCu = 4;
inline constexpr int kWaveSize = 64;
inline constexpr int kMaxWavesPerSimd = 8;        // CDNA 3 ISA guide, ch. 2; unchanged on CDNA 4
inline constexpr int kMaxWorkgroupSize = 1024;    // work-items (HSA dispatch limit of gfx9)
inline constexpr int kLdsBytesPerCu = 160 * 1024; // CDNA 4 white paper: 160 KB LDS, shared by the CU's SIMDs
inline constexpr int kLdsBanks = 64;              // of 4 bytes each

// ---- Registers (CDNA 4 ISA guide, ch. 3; LLVM AMDGPUUsage, "AMDGPU Code Object V5 kernel descriptor") ----------
inline constexpr int kRegistersPerLane = 512;  // one unified VGPR + AGPR file per lane
inline constexpr int kMaxVgprs = 256;          // architectural VGPRs v0..v255
inline constexpr int kMaxAgprs = 256;          // accumulation registers a0..a255
inline constexpr int kRegisterGranule = 8;     // the unified file is allocated in granules of 8
inline constexpr int kAccumOffsetGranule = 4;  // .amdhsa_accum_offset: a multiple of 4 in 4..256
inline constexpr int kAddressableSgprs = 102;  // s0..s101 a kernel may use
// SGPRs a code object may declare: the addressable ones plus VCC, FLAT_SCRATCH and XNACK_MASK, rounded up.
inline constexpr int kMaxDeclaredSgprs = 128;
inline constexpr int kM0 = 124;                // M0's SGPR number in the operand encoding

// ---- Counters and wait states (CDNA 4 ISA guide, "s_waitcnt", "s_nop") ----------------------------------------
inline constexpr int kMaxVmcnt = 63;    // bits 3:0 and 15:14 of s_waitcnt
inline constexpr int kMaxLgkmcnt = 15;  // bits 11:8
inline constexpr int kMaxExpcnt = 7;    // bits 6:4
inline constexpr int kMaxNopStates = 16;  // s_nop 15 waits 16 wait states

// Wait states an `s_nop simm16` waits: its low 4 bits + 1.
constexpr int nop_wait_states(int64_t simm16) { return int(simm16 & 0xf) + 1; }

constexpr int round_up_to(int value, int granule) { return (value + granule - 1) / granule * granule; }

// How many of a kernel's waves and workgroups fit at once, and what limits them.
struct Occupancy {
  int waves_by_registers = 0;      // waves per SIMD the register file holds
  int workgroups_by_registers = 0; // per CU (at least 1)
  int workgroups_by_lds = 0;       // per CU (at least 1; no LDS: unbounded)
  int waves_per_simd = 0;          // resident waves per SIMD: the smaller of the two limits, at most 8
  const char* limit = "";          // "registers" or "LDS"
};

// `registers`: unified VGPR + AGPR registers per lane of one wave (before rounding to the granule).
constexpr Occupancy occupancy(int registers, int64_t lds_bytes, int waves_per_workgroup) {
  Occupancy o;
  const int wpg = std::max(1, waves_per_workgroup);
  o.waves_by_registers =
      std::clamp(kRegistersPerLane / round_up_to(std::max(1, registers), kRegisterGranule), 1, kMaxWavesPerSimd);
  o.workgroups_by_registers = std::max(1, kSimdsPerCu * o.waves_by_registers / wpg);
  o.workgroups_by_lds = lds_bytes > 0 ? int(std::max<int64_t>(1, kLdsBytesPerCu / lds_bytes)) : INT32_MAX;
  const int64_t waves_by_lds = std::min<int64_t>(kMaxWavesPerSimd, int64_t(o.workgroups_by_lds) * wpg / kSimdsPerCu);
  o.waves_per_simd = int(std::min<int64_t>(o.waves_by_registers, waves_by_lds));
  o.limit = o.waves_by_registers <= waves_by_lds ? "registers" : "LDS";
  return o;
}

}  // namespace cdna4::gfx950
