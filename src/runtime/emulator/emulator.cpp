// Grid execution: workgroups spread over host threads, each with its own
// seeded schedule, so results and race reports do not depend on thread count.
#include "runtime/emulator/emulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

#include "cdna4/error.hpp"
#include "runtime/emulator/trace.hpp"
#include "runtime/emulator/workgroup.hpp"
#include "common/limits.hpp"

namespace cdna4::emu {
namespace {

constexpr uint16_t kPrivateSegmentBuffer = 0x1, kFlatScratchInit = 0x20;  // kernel_code_properties bits

void validate(const KernelInfo& kernel, const Dispatch& d) {
  for (int i = 0; i < 3; ++i) {
    if (d.grid[i] == 0) throw Error(fmt::format("emulator: grid dimension {} is zero", i));
    if (d.block[i] == 0) throw Error(fmt::format("emulator: block dimension {} is zero", i));
  }
  uint64_t threads = uint64_t(d.block[0]) * d.block[1] * d.block[2];
  if (threads > uint64_t(gfx950::kMaxWorkgroupSize))
    throw Error(fmt::format("emulator: {} work-items per workgroup exceed {}", threads, gfx950::kMaxWorkgroupSize));
  if (kernel.max_flat_workgroup_size && threads > kernel.max_flat_workgroup_size)
    throw Error(fmt::format("emulator: {} work-items per workgroup exceed the kernel's max_flat_workgroup_size {}",
                            threads, kernel.max_flat_workgroup_size));
  if (kernel.wavefront_size != 64) throw Error("emulator: only wave64 kernels are supported");
  uint64_t lds = uint64_t(std::max(kernel.group_segment_fixed_size, kernel.md_group_segment_fixed_size)) + d.dynamic_lds;
  if (lds > uint64_t(gfx950::kLdsBytesPerCu))
    throw Error(fmt::format("emulator: {} bytes of LDS exceed gfx950's {} KiB", lds, gfx950::kLdsBytesPerCu / 1024));
  // gfx950 has architected flat scratch (LLVM AMDGPUUsage, processor table): the
  // hardware sets each wave's scratch base, and the private segment buffer and
  // flat scratch init user SGPRs "are not supported and must be 0".
  if (private_lane_bytes(kernel, d) && (kernel.kernel_code_properties & (kPrivateSegmentBuffer | kFlatScratchInit)))
    throw Error("emulator: the kernel asks for the private segment buffer or flat scratch init SGPRs, which gfx950 "
                "(architected flat scratch) does not provide");
}

// hsa_kernel_dispatch_packet_t as a kernel reading the dispatch pointer sees it.
std::array<uint8_t, 64> dispatch_packet(const KernelInfo& k, const Dispatch& d, uint64_t kernarg_address) {
  std::array<uint8_t, 64> p{};
  auto put = [&](size_t at, auto v) { std::memcpy(p.data() + at, &v, sizeof v); };
  put(2, uint16_t(3));  // setup: dimensions
  for (int i = 0; i < 3; ++i) {
    put(4 + 2 * i, uint16_t(d.block[i]));
    put(12 + 4 * i, uint32_t(d.grid[i] * d.block[i]));
  }
  put(24, private_lane_bytes(k, d));
  put(28, uint32_t(std::max(k.group_segment_fixed_size, k.md_group_segment_fixed_size) + d.dynamic_lds));
  put(40, kernarg_address);
  return p;
}

}  // namespace

RunStats run(const CodeObject& code, const KernelInfo& kernel, const Dispatch& dispatch,
             const EmulatorOptions& options) {
  auto start = std::chrono::steady_clock::now();
  validate(kernel, dispatch);
  std::shared_ptr<const Program> program = decode_program(code.text(), kernel.accum_offset);

  // Kernel arguments and the dispatch packet live in host memory the kernel may read.
  size_t kernarg_size = std::max<size_t>({dispatch.kernarg.size(), size_t(kernel.kernarg_bytes()), size_t(8)});
  std::vector<uint64_t> kernarg_storage((kernarg_size + 7) / 8, 0);
  if (!dispatch.kernarg.empty())
    std::memcpy(kernarg_storage.data(), dispatch.kernarg.data(), dispatch.kernarg.size());
  uint64_t kernarg_address = reinterpret_cast<uint64_t>(kernarg_storage.data());
  auto packet = dispatch_packet(kernel, dispatch, kernarg_address);
  std::vector<MemoryRegion> regions = dispatch.regions;
  regions.push_back({kernarg_address, kernarg_storage.size() * 8});
  regions.push_back({reinterpret_cast<uint64_t>(packet.data()), packet.size()});
  GlobalMemory memory(std::move(regions));

  RunLimits limits(options, start);
  WorkgroupSetup setup{program.get(), &kernel, &memory, &dispatch, kernarg_address,
                       reinterpret_cast<uint64_t>(packet.data()), options, &limits};

  const uint64_t total = uint64_t(dispatch.grid[0]) * dispatch.grid[1] * dispatch.grid[2];
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<uint64_t>(threads, total));

  std::atomic<uint64_t> next{0}, instructions{0}, macs{0};
  std::mutex progress_mutex;
  uint64_t done = 0;  // under progress_mutex
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::exception_ptr error;
  uint64_t error_wg = ~0ull;
  std::vector<RaceGroups> races_by_wg;  // only workgroups that raced
  std::vector<uint64_t> race_wg_ids;

  auto worker = [&] {
    Workgroup wg;
    for (uint64_t linear; !stop && (linear = next.fetch_add(1)) < total;) {
      uint32_t id[3] = {uint32_t(linear % dispatch.grid[0]), uint32_t((linear / dispatch.grid[0]) % dispatch.grid[1]),
                        uint32_t(linear / (uint64_t(dispatch.grid[0]) * dispatch.grid[1]))};
      auto report_progress = [&] {
        if (!options.on_progress) return;
        std::lock_guard lock(progress_mutex);
        options.on_progress(++done, total,
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      };
      if (options.trace_only && !(options.trace && options.trace->wants(linear))) {
        report_progress();
        continue;
      }
      try {
        if (auto hit = limits.check())
          throw LimitError(fmt::format("emulator: {} before workgroup ({},{},{}) started", *hit, id[0], id[1], id[2]));
        run_workgroup(wg, setup, id);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (linear < error_wg) {
          error_wg = linear;
          error = std::current_exception();
        }
        stop = true;
        return;
      }
      instructions += wg.instructions;
      macs += wg.mfma_macs;
      report_progress();
      if (!wg.races.empty()) {
        std::lock_guard lock(mutex);
        race_wg_ids.push_back(linear);
        races_by_wg.push_back(wg.races);
      }
    }
  };
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);

  RunStats stats;
  stats.instructions = instructions;
  stats.mfma_macs = macs;
  std::vector<size_t> order(race_wg_ids.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return race_wg_ids[a] < race_wg_ids[b]; });
  RaceGroups races(options.max_races);
  for (size_t i : order) races.merge(races_by_wg[i]);
  stats.dropped_races = races.dropped();
  stats.races = races.take();
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

}  // namespace cdna4::emu
