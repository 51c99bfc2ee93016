#pragma once
// Every number the gfx950 timing model uses, with where it comes from. The
// table in docs/model.md is this table; `kParameters` lists it for printing.
#include <string_view>

#include "common/latencies.hpp"
#include "common/limits.hpp"

namespace cdna4::model {

struct Parameter {
  std::string_view name;
  double value;
  std::string_view unit;
  std::string_view source;
};

namespace param {
// Device
inline constexpr Parameter kComputeUnits{"compute_units", gfx950::kComputeUnits, "CUs", "common/limits.hpp (MI355X data sheet)"};
inline constexpr Parameter kClockHz{"clock", 2.4e9, "Hz", "AMD Instinct MI355X data sheet (peak engine clock)"};
inline constexpr Parameter kHbmBytesPerSecond{"hbm_bandwidth", 8e12, "B/s", "AMD Instinct MI355X data sheet (HBM3E)"};
inline constexpr Parameter kXcds{"xcds", gfx950::kXcds, "XCDs", "common/limits.hpp (MI355X data sheet); workgroups go to XCDs round-robin"};
inline constexpr Parameter kMallBytes{"mall_size", 256.0 * 1024 * 1024, "bytes", "AMD Instinct MI355X data sheet (256 MB AMD Infinity Cache)"};
inline constexpr Parameter kMallBytesPerSecond{"mall_bandwidth", 17.2e12, "B/s",
                                               "AMD CDNA 3 white paper (MI300X Infinity Cache peak 17.2 TB/s); assumed for MI355X"};
inline constexpr Parameter kL2BytesPerClock{"l2_bandwidth", 2048, "bytes/clock per XCD",
                                            "AMD CDNA 3 white paper (16 channels x 128 B/clock per XCD); assumed unchanged"};
inline constexpr Parameter kFootprintBytes{"footprint_probe", 256 * 1024, "bytes per workgroup",
                                           "assumed (the first few K-steps of a GEMM tile; docs/model.md \"L2 reuse\")"};
inline constexpr Parameter kGridSamples{"grid_samples", 16, "workgroups",
                                        "assumed (modeling time: each is emulated in full); docs/model.md "
                                        "\"Grids whose workgroups differ\""};
inline constexpr Parameter kTraceAllWorkgroups{"trace_all_workgroups", 16, "workgroups",
                                               "assumed: grids this small are traced whole"};
// Power (docs/model.md "Power"): the MFMA pipes may draw the board power left
// after the static part; a dense grid runs no faster than its MACs' energy over it.
inline constexpr Parameter kBoardPower{"board_power", 1400, "W", "AMD Instinct MI355X data sheet (total board power)"};
inline constexpr Parameter kStaticPower{"static_power", 400, "W",
                                        "assumed: what the board draws besides the MFMA pipes under load (HBM, "
                                        "fabric, caches, leakage); only the fitted energies' scale depends on it"};
inline constexpr Parameter kMacEnergy16{"mac_energy_16bit", 1.247e-12, "J per MAC",
                                        "fitted (bf16 / f16 MFMAs; docs/model.md \"Calibration protocol\")"};
inline constexpr Parameter kMacEnergy8{"mac_energy_8bit", 0.590e-12, "J per MAC",
                                       "fitted (fp8 / bf8 / i8 MFMAs; docs/model.md \"Calibration protocol\")"};
inline constexpr Parameter kNarrowMacEnergyShare{"narrow_mac_energy_share", 0.5, "of mac_energy_8bit",
                                                 "assumed: fp6 / fp4 f8f6f4 MFMAs run at half the passes of fp8 with "
                                                 "the same pipe, taken to draw the same power per pipe clock"};
// Launch
inline constexpr Parameter kLaunchSeconds{"launch_latency", 6.39e-6, "s",
                                          "fitted (one launch timed by events around it; docs/model.md "
                                          "\"Small grids\")"};
inline constexpr Parameter kWavesDispatchedPerClock{"wave_dispatch_rate", 1, "waves per clock per XCD",
                                                    "assumed (one wave launched per clock by each XCD's dispatcher)"};
// Compute unit
inline constexpr Parameter kSimdsPerCu{"simds_per_cu", gfx950::kSimdsPerCu, "SIMDs", "common/limits.hpp (CDNA 4 ISA guide, ch. 1)"};
inline constexpr Parameter kMaxWavesPerSimd{"max_waves_per_simd", gfx950::kMaxWavesPerSimd, "waves",
                                            "common/limits.hpp (CDNA 3 ISA guide, ch. 2; assumed unchanged on CDNA 4)"};
inline constexpr Parameter kVgprsPerLane{"vector_registers_per_simd_lane", gfx950::kRegistersPerLane, "VGPR+AGPR",
                                         "common/limits.hpp (CDNA 4 ISA guide, ch. 3: one unified file per lane)"};
inline constexpr Parameter kMaxWorkgroupsPerCu{"max_workgroups_per_cu", 16, "workgroups", "assumed"};
inline constexpr Parameter kLdsBytesPerCu{"lds_per_cu", gfx950::kLdsBytesPerCu, "bytes", "common/limits.hpp (CDNA 4 white paper)"};
// Issue
inline constexpr Parameter kIssuePeriod{"issue_period", 4, "clocks",
                                        "AMD GCN architecture white paper (each SIMD considered for issue every 4th "
                                        "clock); assumed unchanged on CDNA 4"};
inline constexpr Parameter kTakenBranchPenalty{"taken_branch_penalty", 8, "clocks", "assumed (instruction refetch)"};
// Pipes
inline constexpr Parameter kClocksPerMfmaPass{"clocks_per_mfma_pass", gfx950::kClocksPerMfmaPass, "clocks",
                                              "LLVM SISchedule.td (gfx940+ XDL write latency = 4 x passes); "
                                              "passes per kind in common/mfma_table.hpp"};
inline constexpr Parameter kMfmaResultExtra{"mfma_result_extra", 2, "clocks",
                                            "LLVM GCNHazardRecognizer (XDL N-pass result read by A/B or VALU: "
                                            "about N + 2 wait states); rounded, assumed"};
inline constexpr Parameter kTranscendentalClocks{
    "transcendental_clocks", 16, "clocks",
    "quarter rate: AMD CDNA 3 ISA guide (transcendental ops, quarter rate); LLVM SISchedule.td SICommonWriteRes, "
    "used by gfx950's SIDPGFX950FullSpeedModel: WriteTrans32 4 against Write32Bit 1 (\"1 / (operations / "
    "cycle) / 4\"); an open LLVM pull (156411) would make gfx950's Trans32 rate 2 (half rate), not merged"};
inline constexpr Parameter kValuLatency{"valu_latency", 8, "clocks",
                                       "measured on gfx950: a dependent v_fma_f32 chain, 8.3 s_memtime ticks a "
                                       "step (facebookexperimental/triton pull 2507, AMDLatencyModel.cpp)"};
inline constexpr Parameter kSmemLatency{"smem_latency", gfx950::kScalarCacheLatencyClocks, "clocks",
                                        "common/latencies.hpp (assumed: scalar cache hit)"};
inline constexpr Parameter kBarrierLatency{"barrier_latency", 4, "clocks", "assumed"};
// LDS
inline constexpr Parameter kLdsBanks{"lds_banks", gfx950::kLdsBanks, "banks of 4 bytes",
                                     "common/limits.hpp; one bank access per bank per clock"};
inline constexpr Parameter kLdsWriteBytesPerClock{
    "lds_write_bytes_per_clock", 64, "bytes/clock per CU",
    "AMD rocRoller's gfx950 LDS model (LDSBankModel.cpp @ 9f2b6979: every ds_write width writes 64 bytes a "
    "clock, 16 lanes of b32, 8 of b64, 4 of b128); LDS-DMA data is taken to be written at that rate"};
inline constexpr Parameter kLdsLatency{"lds_latency", gfx950::kLdsLatencyClocks, "clocks",
                                       "common/latencies.hpp (assumed: published CDNA 3 microbenchmarks put LDS "
                                       "at 60-130 clocks)"};
// Vector memory
inline constexpr Parameter kCacheLineBytes{"cache_line", 128, "bytes", "AMD CDNA 3 ISA guide / white paper (128 B L2 line)"};
inline constexpr Parameter kL1BytesPerClock{"vector_memory_bytes_per_clock", 128, "bytes/clock per CU",
                                            "ROCm Compute Profiler's gfx950 speed-of-light: vL1D peak one 128-byte "
                                            "line a clock per CU (max_sclk x 128 x CUs)"};
inline constexpr Parameter kL2HitLatency{"l2_hit_latency", gfx950::kL2HitLatencyClocks, "clocks",
                                         "common/latencies.hpp (assumed: loaded L2 hit)"};
inline constexpr Parameter kL2MissLatency{"l2_miss_latency", gfx950::kMallHitLatencyClocks, "clocks",
                                          "common/latencies.hpp (assumed: loaded MALL hit)"};
inline constexpr Parameter kHbmLatency{"hbm_latency", gfx950::kHbmLatencyClocks, "clocks",
                                       "common/latencies.hpp (assumed: loaded HBM access)"};
}  // namespace param

inline constexpr const Parameter* kParameters[] = {
    &param::kComputeUnits,     &param::kClockHz,          &param::kHbmBytesPerSecond, &param::kXcds,
    &param::kMallBytes,        &param::kMallBytesPerSecond, &param::kL2BytesPerClock, &param::kFootprintBytes,
    &param::kGridSamples,      &param::kTraceAllWorkgroups, &param::kBoardPower,       &param::kStaticPower,
    &param::kMacEnergy16,      &param::kMacEnergy8,       &param::kNarrowMacEnergyShare, &param::kLaunchSeconds,
    &param::kWavesDispatchedPerClock, &param::kSimdsPerCu,
    &param::kMaxWavesPerSimd,  &param::kVgprsPerLane,     &param::kMaxWorkgroupsPerCu, &param::kLdsBytesPerCu,
    &param::kIssuePeriod,      &param::kTakenBranchPenalty, &param::kClocksPerMfmaPass, &param::kMfmaResultExtra,
    &param::kTranscendentalClocks, &param::kValuLatency, &param::kSmemLatency,      &param::kBarrierLatency,     &param::kLdsBanks,
    &param::kLdsWriteBytesPerClock, &param::kLdsLatency,       &param::kCacheLineBytes,   &param::kL1BytesPerClock,    &param::kL2HitLatency,
    &param::kL2MissLatency,    &param::kHbmLatency,
};

// Integer view for the simulator.
constexpr unsigned as_int(const Parameter& p) { return static_cast<unsigned>(p.value); }

}  // namespace cdna4::model
