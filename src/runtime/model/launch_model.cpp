#include "runtime/model/launch_model.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

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
};

SampleCost per_workgroup(const CuResult& cu, size_t workgroups) {
  const double n = double(std::max<size_t>(workgroups, 1));
  return {double(cu.cycles), double(cu.mfma_busy_cycles) / n, double(cu.stored_bytes) / n};
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

LaunchModel::LaunchModel(const KernelInfo& kernel, const emu::Dispatch& dispatch, bool timeline)
    : kernel_(kernel),
      occupancy_(occupancy(kernel, dispatch.block[0] * dispatch.block[1] * dispatch.block[2], lds_bytes(kernel, dispatch))),
      workgroups_(uint64_t(dispatch.grid[0]) * dispatch.grid[1] * dispatch.grid[2]),
      simulated_(uint32_t(std::min<uint64_t>(occupancy_.workgroups_per_cu, workgroups_))),
      grid_{{dispatch.grid[0], dispatch.grid[1], dispatch.grid[2]}},
      memory_bytes_(passed_buffer_bytes(dispatch)),
      timeline_(timeline),
      collector_(simulated_, sample_workgroups(grid_), first_round_on_one_xcd(workgroups_, occupancy_.workgroups_per_cu),
                 as_int(param::kFootprintBytes) / as_int(param::kCacheLineBytes)) {}

ModelReport LaunchModel::report(const CodeObject& code) {
  std::shared_ptr<const emu::Program> program = emu::decode_program(code.text(), kernel_.accum_offset);
  const std::vector<InstTiming> timing = classify(*program);
  const std::vector<emu::WorkgroupTrace> resident = collector_.take_resident();
  std::map<uint64_t, emu::WorkgroupTrace> samples = collector_.take_samples();
  const double miss = l2_reuse(collector_.take_footprints()).miss_fraction();
  const uint32_t latency = global_latency(miss, memory_bytes_);
  CuResult cu = simulate_cu(*program, timing, resident, latency, timeline_);

  // Each other sampled workgroup runs as a resident set of copies of itself;
  // one whose instruction stream and costs match an already simulated one
  // takes that one's cost.
  const double line = param::kCacheLineBytes.value;
  std::map<uint64_t, double> cycles, mfma, read, stored;
  auto note = [&](uint64_t id, const SampleCost& c, size_t read_lines) {
    cycles[id] = c.cycles, mfma[id] = c.mfma_cycles, stored[id] = c.stored_bytes, read[id] = double(read_lines) * line;
  };
  std::vector<std::pair<const emu::WorkgroupTrace*, SampleCost>> simulated;
  const SampleCost first = per_workgroup(cu, resident.size());
  for (const emu::WorkgroupTrace& t : resident) {
    note(t.linear_id, first, t.read_lines.size());
    simulated.push_back({&t, first});
  }
  for (auto& [id, trace] : samples) {
    auto known = std::find_if(simulated.begin(), simulated.end(), [&](auto& s) { return same_stream(*s.first, trace); });
    if (known == simulated.end()) {
      const std::vector<emu::WorkgroupTrace> copies(simulated_, trace);
      const CuResult set = simulate_cu(*program, timing, copies, latency);
      for (size_t k = 0; k < cu.wave_cycles.size(); ++k) cu.wave_cycles[k] += set.wave_cycles[k];
      known = simulated.insert(simulated.end(), {&trace, per_workgroup(set, copies.size())});
    }
    note(id, known->second, trace.read_lines.size());
  }
  const WorkgroupCosts costs{GridEstimate(grid_, cycles), GridEstimate(grid_, mfma), GridEstimate(grid_, read),
                             GridEstimate(grid_, stored), uint32_t(cycles.size())};
  return compose(std::move(cu), occupancy_, {workgroups_, simulated_, memory_bytes_, miss, 0}, costs);
}

}  // namespace cdna4::model
