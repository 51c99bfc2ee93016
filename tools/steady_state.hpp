#pragma once
// The modeled CU's steady state: a window of whole loop trips of its timeline
// (EmulatorConfig::model_timeline), and how busy the MFMA pipes are in it.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "cdna4/model_report.hpp"

namespace cdna4::tools {

struct TimelineWindow {
  uint64_t begin = 0, end = 0;        // clocks of the CU
  std::vector<uint64_t> trip_starts;  // loop-trip boundaries, begin and end included
  uint32_t loop_pc = 0;               // the MFMA whose visits mark the trips
  size_t first_trip = 0;              // index of the first trip shown (0-based)
  size_t trips = 0;                   // loop trips of the reference wave (visits - 1)
  bool steady_state = false;          // false: nothing repeats, the window is the whole run
  uint32_t workgroup = 0, wave = 0;   // the reference wave
};

// Window: the first wave with MFMAs, its loop head = lowest pc of its most-repeated MFMAs, two
// trips between its visits there (one if it makes only one) mid-run; no repeat: the whole run.
inline TimelineWindow steady_state_window(const ModelReport& m) {
  TimelineWindow w;
  for (const ModelSlice& s : m.timeline) w.end = std::max(w.end, s.end);
  const ModelSlice* first = nullptr;
  for (const ModelSlice& s : m.timeline)
    if (s.kind == ModelSliceKind::mfma &&
        (!first || std::tie(s.workgroup, s.wave) < std::tie(first->workgroup, first->wave)))
      first = &s;
  if (!first) return w;
  std::map<uint32_t, std::vector<uint64_t>> visits;  // pc -> issue clocks
  for (const ModelSlice& s : m.timeline)
    if (s.kind == ModelSliceKind::mfma && s.workgroup == first->workgroup && s.wave == first->wave)
      visits[s.pc].push_back(s.begin);
  auto head = visits.begin();
  for (auto it = visits.begin(); it != visits.end(); ++it)
    if (it->second.size() > head->second.size()) head = it;
  std::vector<uint64_t>& at = head->second;
  if (at.size() < 2) return w;
  std::sort(at.begin(), at.end());
  const size_t shown = std::min<size_t>(2, at.size() - 1);
  w.steady_state = true;
  w.workgroup = first->workgroup;
  w.wave = first->wave;
  w.loop_pc = head->first;
  w.trips = at.size() - 1;
  w.first_trip = (w.trips - shown) / 2;
  w.trip_starts.assign(at.begin() + long(w.first_trip), at.begin() + long(w.first_trip + shown + 1));
  w.begin = w.trip_starts.front();
  w.end = w.trip_starts.back();
  return w;
}

// MFMA pipe time inside the window / (SIMDs x window clocks): the steady-state
// utilisation, free of the prologue, the epilogue and the device-level power
// ceiling (which caps the whole dispatch, not a CU's loop). 0 without a loop.
inline double steady_state_mfma_utilization(const ModelReport& m, const TimelineWindow& w) {
  if (!w.steady_state || w.end <= w.begin) return 0;
  std::set<uint32_t> simds;
  uint64_t busy = 0;
  for (const ModelSlice& s : m.timeline) {
    simds.insert(s.simd);
    if (s.kind != ModelSliceKind::mfma) continue;
    const uint64_t b = std::max(s.begin, w.begin), e = std::min(s.end, w.end);
    if (e > b) busy += e - b;
  }
  return double(busy) / (double(simds.size()) * double(w.end - w.begin));
}

}  // namespace cdna4::tools
