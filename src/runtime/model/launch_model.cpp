#include "runtime/model/launch_model.hpp"

#include <algorithm>
#include <cstring>
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

uint64_t workgroup_count(const emu::Dispatch& d) { return uint64_t(d.grid[0]) * d.grid[1] * d.grid[2]; }

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
      workgroups_(workgroup_count(dispatch)),
      simulated_(uint32_t(std::min<uint64_t>(occupancy_.workgroups_per_cu, workgroups_))),
      memory_bytes_(passed_buffer_bytes(dispatch)),
      timeline_(timeline),
      collector_(simulated_, first_round_on_one_xcd(workgroups_, occupancy_.workgroups_per_cu),
                 as_int(param::kFootprintBytes) / as_int(param::kCacheLineBytes)) {}

ModelReport LaunchModel::report(const CodeObject& code) {
  std::shared_ptr<const emu::Program> program = emu::decode_program(code.text(), kernel_.accum_offset);
  const std::vector<InstTiming> timing = classify(*program);
  const std::vector<emu::WorkgroupTrace> traces = collector_.take_traces();
  const double miss = l2_reuse(collector_.take_footprints()).miss_fraction();
  double read_lines = 0;
  for (const emu::WorkgroupTrace& t : traces) read_lines += double(t.read_lines.size());
  const double read_bytes = read_lines * param::kCacheLineBytes.value / double(std::max<size_t>(traces.size(), 1));
  const uint32_t latency = global_latency(miss, memory_bytes_, read_bytes * double(workgroups_));
  const CuResult cu = simulate_cu(*program, timing, traces, latency, timeline_);
  return compose(cu, occupancy_, {workgroups_, simulated_, memory_bytes_, miss, read_bytes, occupancy_.waves_per_workgroup});
}

}  // namespace cdna4::model
