#include "runtime/model/launch_model.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "runtime/model/cu_model.hpp"
#include "runtime/model/device_model.hpp"
#include "runtime/model/instruction_class.hpp"
#include "runtime/model/l2_reuse.hpp"
#include "runtime/model/parameters.hpp"

namespace cdna4::model {
namespace {

uint32_t lds_bytes(const KernelInfo& k, const emu::Dispatch& d) {
  return std::max(k.group_segment_fixed_size, k.md_group_segment_fixed_size) + d.dynamic_lds;
}

bool same_stream(const emu::WorkgroupTrace& a, const emu::WorkgroupTrace& b) {
  if (a.waves.size() != b.waves.size()) return false;
  for (size_t w = 0; w < a.waves.size(); ++w)
    if (!std::equal(a.waves[w].begin(), a.waves[w].end(), b.waves[w].begin(), b.waves[w].end(),
                    [](const emu::TraceEntry& x, const emu::TraceEntry& y) { return x.inst == y.inst && x.cost == y.cost; }))
      return false;
  return true;
}

// What one workgroup of a simulated resident set costs.
struct SampleCost {
  double cycles = 0, mfma_cycles = 0, stored_bytes = 0;
  std::array<double, kMacClasses> macs{};
};

SampleCost per_workgroup(const CuResult& cu, size_t workgroups) {
  const double n = double(std::max<size_t>(workgroups, 1));
  SampleCost c{double(cu.cycles), double(cu.mfma_busy_cycles) / n, double(cu.stored_bytes) / n};
  for (size_t k = 0; k < kMacClasses; ++k) c.macs[k] = double(cu.macs[k]) / n;
  return c;
}

// The workgroups one CU holds at once: as many as fit (occupancy), but no more
// than the grid gives each CU when the dispatcher spreads it over all of them
// (256 workgroups on 256 CUs run one per CU, whatever would fit).
uint32_t resident_per_cu(uint32_t fit, uint64_t workgroups) {
  const auto cus = uint64_t(param::kComputeUnits.value);
  return uint32_t(std::clamp<uint64_t>((workgroups + cus - 1) / cus, 1, std::max<uint32_t>(fit, 1)));
}

}  // namespace

double passed_buffer_bytes(const emu::Dispatch& dispatch) {
  std::set<uint64_t> pointers;
  for (size_t at = 0; at + 8 <= dispatch.kernarg.size(); at += 8) {
    uint64_t value;
    std::memcpy(&value, dispatch.kernarg.data() + at, 8);
    if (value) pointers.insert(value);
  }
  double bytes = 0;
  std::set<uint64_t> counted;
  for (const emu::MemoryRegion& r : dispatch.regions)
    if (pointers.count(r.base) && counted.insert(r.base).second) bytes += double(r.size);
  return bytes;
}

LaunchModel::LaunchModel(const KernelInfo& kernel, const emu::Dispatch& dispatch, bool timeline,
                         uint64_t max_trace_bytes)
    : kernel_(kernel),
      occupancy_(occupancy(kernel, dispatch.block[0] * dispatch.block[1] * dispatch.block[2], lds_bytes(kernel, dispatch))),
      workgroups_(uint64_t(dispatch.grid[0]) * dispatch.grid[1] * dispatch.grid[2]),
      simulated_(resident_per_cu(occupancy_.workgroups_per_cu, workgroups_)),
      grid_{{dispatch.grid[0], dispatch.grid[1], dispatch.grid[2]}},
      memory_bytes_(passed_buffer_bytes(dispatch)),
      timeline_(timeline),
      max_trace_bytes_(max_trace_bytes),
      collector_(simulated_, sample_workgroups(grid_), first_round_on_one_xcd(workgroups_, occupancy_.workgroups_per_cu),
                 as_int(param::kFootprintBytes) / as_int(param::kCacheLineBytes), max_trace_bytes) {}

ModelReport LaunchModel::report(const CodeObject& code) {
  std::shared_ptr<const emu::Program> program = emu::decode_program(code.text(), kernel_.accum_offset);
  const std::vector<InstTiming> timing = classify(*program);
  const std::vector<emu::WorkgroupTrace> resident = collector_.take_resident();
  std::map<uint64_t, emu::WorkgroupTrace> samples = collector_.take_samples();
  const double miss = l2_reuse(collector_.take_footprints()).miss_fraction();
  // The bytes each sampled workgroup reads (its distinct lines), known before
  // any simulation: the grid's total sets the share of first touches.
  const double line = param::kCacheLineBytes.value;
  std::map<uint64_t, double> read;
  for (const emu::WorkgroupTrace& t : resident) read[t.linear_id] = double(t.read_lines.size()) * line;
  for (auto& [id, trace] : samples) read[id] = double(trace.read_lines.size()) * line;
  const GridEstimate read_bytes(grid_, read);
  const uint32_t latency = global_latency(miss, memory_bytes_, read_bytes.total());
  uint64_t max_slices = UINT64_MAX;
  if (max_trace_bytes_) max_slices = (max_trace_bytes_ - std::min(max_trace_bytes_, collector_.bytes())) / sizeof(ModelSlice);
  CuResult cu = simulate_cu(*program, timing, resident, latency, timeline_, max_slices);

  // Each other sampled workgroup runs as a resident set of copies of itself;
  // one whose instruction stream and costs match an already simulated one
  // takes that one's cost.
  std::map<uint64_t, double> cycles, mfma, stored;
  std::array<std::map<uint64_t, double>, kMacClasses> macs;
  auto note = [&](uint64_t id, const SampleCost& c) {
    cycles[id] = c.cycles, mfma[id] = c.mfma_cycles, stored[id] = c.stored_bytes;
    for (size_t k = 0; k < kMacClasses; ++k) macs[k][id] = c.macs[k];
  };
  std::vector<std::pair<const emu::WorkgroupTrace*, SampleCost>> simulated;
  const SampleCost first = per_workgroup(cu, resident.size());
  for (const emu::WorkgroupTrace& t : resident) {
    note(t.linear_id, first);
    simulated.push_back({&t, first});
  }
  for (auto& [id, trace] : samples) {
    auto known = std::find_if(simulated.begin(), simulated.end(), [&](auto& s) { return same_stream(*s.first, trace); });
    if (known == simulated.end()) {
      const int64_t copy_bytes = int64_t(simulated_ - 1) * int64_t(emu::trace_bytes(trace));
      if (!collector_.charge(copy_bytes))
        throw LimitError(fmt::format("model: {} copies of sampled workgroup {}'s trace would pass the limit of {} "
                                     "bytes (max_trace_bytes, --max-trace-bytes)",
                                     simulated_ - 1, id, max_trace_bytes_));
      const std::vector<emu::WorkgroupTrace> copies(simulated_, trace);
      const CuResult set = simulate_cu(*program, timing, copies, latency);
      collector_.charge(-copy_bytes);
      for (size_t k = 0; k < cu.wave_cycles.size(); ++k) cu.wave_cycles[k] += set.wave_cycles[k];
      known = simulated.insert(simulated.end(), {&trace, per_workgroup(set, copies.size())});
    }
    note(id, known->second);
  }
  const WorkgroupCosts costs{GridEstimate(grid_, cycles),
                             GridEstimate(grid_, mfma),
                             read_bytes,
                             GridEstimate(grid_, stored),
                             {GridEstimate(grid_, macs[0]), GridEstimate(grid_, macs[1]), GridEstimate(grid_, macs[2])},
                             uint32_t(cycles.size())};
  const GridFacts facts{workgroups_, simulated_, memory_bytes_, miss, read_bytes.total() / double(std::max<uint64_t>(workgroups_, 1)),
                        occupancy_.waves_per_workgroup};
  return compose(std::move(cu), occupancy_, facts, costs);
}

}  // namespace cdna4::model
