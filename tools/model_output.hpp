#pragma once
// The lines and JSON the tools print for the model device; every number is
// labelled "modeled" (scripts read "modeled cycles:", "modeled time:" and
// "modeled: X TFLOP/s", docs/model.md).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "cdna4/error.hpp"
#include "cdna4/model_report.hpp"
#include "steady_state.hpp"

namespace cdna4::tools {

inline std::vector<std::pair<const char*, double>> stall_shares(const ModelStallShares& s) {
  return {{"issued", s.issued},   {"vmcnt", s.vmcnt},         {"lgkmcnt", s.lgkmcnt},
          {"barrier", s.barrier}, {"mfma_dependency", s.mfma_dependency}, {"mfma_busy", s.mfma_busy},
          {"issue", s.issue},     {"other", s.other}};
}

// `flops` done in the modeled time, in TFLOP/s (0 when no time was modeled).
inline double modeled_tflops(const ModelReport& m, double flops) { return m.seconds > 0 ? flops / m.seconds / 1e12 : 0.0; }

inline void print_model_lines(const ModelReport& m) {
  fmt::print("modeled cycles: {}\n", m.cycles);
  fmt::print("modeled time: {:.3f} us\n", m.seconds * 1e6);
  fmt::print("modeled occupancy: {} workgroups per CU, {} rounds of {} cycles; bound by {}\n", m.workgroups_per_cu,
             m.rounds, m.cu_cycles, m.bound == "CU" ? "the CU" : m.bound);
  if (m.heaviest_cu_cycles != m.lightest_cu_cycles)
    fmt::print("modeled grid: {} workgroups sampled, resident sets of {} to {} cycles (the rounds dispatched from them)\n",
               m.sampled_workgroups, m.lightest_cu_cycles, m.heaviest_cu_cycles);
  fmt::print("modeled memory: L2 hit rate {:.0f}% (grid order), latency {} clocks; L2 {:.1f} us, MALL {:.1f} us, "
             "HBM {:.1f} us; power ceiling {:.1f} us; store drain {:.1f} us; launch {:.2f} us\n",
             100 * m.l2_hit_rate, m.global_latency, m.l2_seconds * 1e6, m.mall_seconds * 1e6, m.memory_seconds * 1e6,
             m.power_seconds * 1e6, m.drain_seconds * 1e6, m.launch_seconds * 1e6);
  fmt::print("modeled MFMA utilisation: {:.1f}%\n", 100 * m.mfma_utilization);
  if (const TimelineWindow w = steady_state_window(m); w.steady_state)
    fmt::print("modeled steady-state MFMA utilisation: {:.1f}% (one CU, loop trips {}-{} of {}, no power ceiling)\n",
               100 * steady_state_mfma_utilization(m, w), w.first_trip + 1, w.first_trip + w.trip_starts.size() - 1,
               w.trips);
  std::string line = "modeled wave time:";
  for (auto [name, share] : stall_shares(m.stalls)) line += fmt::format(" {} {:.1f}%", name, 100 * share);
  fmt::print("{}\n", line);
}

inline nlohmann::json model_json(const ModelReport& m) {
  nlohmann::json stalls;
  for (auto [name, share] : stall_shares(m.stalls)) stalls[name] = share;
  return {{"cycles", m.cycles},
          {"seconds", m.seconds},
          {"clock_hz", m.clock_hz},
          {"mfma_utilization", m.mfma_utilization},
          {"cu_cycles", m.cu_cycles},
          {"rounds", m.rounds},
          {"workgroups_per_cu", m.workgroups_per_cu},
          {"waves_per_simd", m.waves_per_simd},
          {"compute_seconds", m.compute_seconds},
          {"memory_seconds", m.memory_seconds},
          {"memory_bytes", m.memory_bytes},
          {"memory_bound", m.memory_bound},
          {"bound", m.bound},
          {"l2_hit_rate", m.l2_hit_rate},
          {"global_latency", m.global_latency},
          {"l2_seconds", m.l2_seconds},
          {"mall_seconds", m.mall_seconds},
          {"sampled_workgroups", m.sampled_workgroups},
          {"lightest_cu_cycles", m.lightest_cu_cycles},
          {"heaviest_cu_cycles", m.heaviest_cu_cycles},
          {"mfma_peak_seconds", m.mfma_peak_seconds},
          {"power_seconds", m.power_seconds},
          {"drain_seconds", m.drain_seconds},
          {"launch_seconds", m.launch_seconds},
          {"dispatch_seconds", m.dispatch_seconds},
          {"mfma_macs", {{"16bit", m.mfma_macs[0]}, {"8bit", m.mfma_macs[1]}, {"narrow", m.mfma_macs[2]}}},
          {"wave_time", stalls}};
}

// The modeled timeline in the Chrome trace-event format (chrome://tracing,
// Perfetto): one process per SIMD, per wave a track of its waits and one of its
// MFMAs; memory operations in flight as async slices. Times in microseconds of
// the modeled clock. Streamed event by event: a long timeline needs no more
// memory than its slices.
inline void chrome_trace(std::ostream& out, const ModelReport& m) {
  auto us = [&](uint64_t clocks) { return double(clocks) * 1e6 / m.clock_hz; };
  auto tid = [](const ModelSlice& s, int track) { return int((s.workgroup * 64 + s.wave) * 2 + track); };
  const nlohmann::json other = {{"what", "modeled gfx950 timeline of one CU (docs/model.md)"}, {"cycles", m.cu_cycles}};
  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":" << other.dump() << ",\"traceEvents\":[";
  bool first = true;
  auto event = [&](const nlohmann::json& e) {
    out << (first ? "" : ",") << e.dump();
    first = false;
  };
  std::vector<bool> named;
  uint64_t async_id = 0;
  for (const ModelSlice& s : m.timeline) {
    const int wave_tid = tid(s, 0);
    if (size_t(wave_tid / 2) >= named.size()) named.resize(wave_tid / 2 + 1, false);
    if (!named[wave_tid / 2]) {
      named[wave_tid / 2] = true;
      const std::string wave = fmt::format("workgroup {} wave {}", s.workgroup, s.wave);
      event({{"ph", "M"}, {"name", "process_name"}, {"pid", s.simd}, {"args", {{"name", fmt::format("SIMD {}", s.simd)}}}});
      event({{"ph", "M"}, {"name", "thread_name"}, {"pid", s.simd}, {"tid", wave_tid}, {"args", {{"name", wave}}}});
      event({{"ph", "M"}, {"name", "thread_name"}, {"pid", s.simd}, {"tid", tid(s, 1)}, {"args", {{"name", wave + " MFMA"}}}});
    }
    const char* name = "";
    switch (s.kind) {
      case ModelSliceKind::mfma: name = "MFMA"; break;
      case ModelSliceKind::global_load: name = "global load"; break;
      case ModelSliceKind::global_store: name = "global store"; break;
      case ModelSliceKind::lds: name = "LDS"; break;
      case ModelSliceKind::wait_vmcnt: name = "wait vmcnt"; break;
      case ModelSliceKind::wait_lgkmcnt: name = "wait lgkmcnt"; break;
      case ModelSliceKind::barrier: name = "barrier"; break;
      case ModelSliceKind::mfma_dependency: name = "wait MFMA result"; break;
    }
    nlohmann::json args = {{"pc", fmt::format("0x{:x}", s.pc)}, {"clocks", s.end - s.begin}};
    const bool memory = s.kind == ModelSliceKind::global_load || s.kind == ModelSliceKind::global_store ||
                        s.kind == ModelSliceKind::lds;
    if (memory) {
      const uint64_t id = ++async_id;
      event({{"ph", "b"}, {"cat", "memory"}, {"name", name}, {"id", id}, {"pid", s.simd},
             {"tid", wave_tid}, {"ts", us(s.begin)}, {"args", args}});
      event({{"ph", "e"}, {"cat", "memory"}, {"name", name}, {"id", id}, {"pid", s.simd},
             {"tid", wave_tid}, {"ts", us(s.end)}});
    } else {
      event({{"ph", "X"}, {"name", name}, {"pid", s.simd}, {"tid", s.kind == ModelSliceKind::mfma ? tid(s, 1) : wave_tid},
             {"ts", us(s.begin)}, {"dur", us(s.end) - us(s.begin)}, {"args", args}});
    }
  }
  out << "]}\n";
}

}  // namespace cdna4::tools
