#include <fmt/format.h>

#include <new>

#include "cdna4/runtime.hpp"
#include "runtime/backend.hpp"
#include "common/limits.hpp"

namespace cdna4 {
namespace {

// Far above any gfx950's memory, far below where size arithmetic could wrap.
constexpr size_t kMaxBufferBytes = size_t(1) << 40;

}  // namespace

Device Device::emulator(const EmulatorConfig& config) { return Device(detail::make_emulator_backend(config)); }

Device Device::model(const EmulatorConfig& config) { return Device(detail::make_model_backend(config)); }

Device Device::hsa() { return Device(detail::make_hsa_backend()); }

Device Device::open(const std::string& name, const EmulatorConfig& config) {
  if (name == "emulator") return emulator(config);
  if (name == "model") return model(config);
  if (name == "hsa") return hsa();
  throw Error(fmt::format("unknown device '{}' (expected 'emulator', 'model' or 'hsa')", name));
}

const std::string& Device::name() const { return backend_->name(); }

Buffer Device::alloc(size_t bytes) {
  if (bytes > kMaxBufferBytes)
    throw Error(fmt::format("{}: cannot allocate {} bytes; a buffer holds at most {} bytes (1 TiB)",
                            backend_->name(), bytes, kMaxBufferBytes));
  try {
    return Buffer(backend_->alloc(bytes));
  } catch (const std::bad_alloc&) {
    throw Error(fmt::format("{}: out of memory allocating {} bytes", backend_->name(), bytes));
  }
}

namespace {

LaunchStats launch_on(detail::Backend& backend, const Kernel& kernel, Dim3 grid, Dim3 block,
                      const rt::ExplicitArgs& args, const LaunchOptions& options) {
  const KernelInfo& info = kernel.info();
  const std::string& processor = kernel.code_object().processor();
  if (processor != "gfx950")
    throw Error(fmt::format("kernel {}: the code object is for {} (target {}); the {} device runs gfx950 code only",
                            info.name, processor, kernel.code_object().target(), backend.name()));
  uint64_t lds = uint64_t(std::max(info.group_segment_fixed_size, info.md_group_segment_fixed_size)) +
                 options.dynamic_lds;
  if (lds > uint64_t(gfx950::kLdsBytesPerCu))
    throw Error(fmt::format("kernel {}: {} bytes of LDS (fixed + dynamic) exceed gfx950's {}",
                            info.name, lds, gfx950::kLdsBytesPerCu));
  rt::DispatchGeometry geometry = rt::dispatch_geometry(info, grid, block, options.grid_unit);
  LaunchStats stats = backend.launch(kernel, geometry, args, options);
  if (!stats.races.empty() && options.on_race == OnRace::Throw) {
    uint64_t occurrences = stats.dropped_races;
    for (const RaceReport& race : stats.races) occurrences += race.count;
    std::string message = fmt::format("kernel {}: {} race{} detected", info.name, occurrences,
                                      occurrences == 1 ? "" : "s");
    for (const RaceReport& race : stats.races)
      message += "\n  " + describe(race) + (race.count > 1 ? fmt::format(" ({} times)", race.count) : "");
    if (stats.dropped_races) message += fmt::format("\n  and {} more in further groups", stats.dropped_races);
    throw RaceError(message, std::move(stats.races));
  }
  return stats;
}

}  // namespace

LaunchStats Device::launch(const Kernel& kernel, Dim3 grid, Dim3 block, const std::vector<Arg>& args,
                           const LaunchOptions& options) {
  return launch_on(*backend_, kernel, grid, block, args, options);
}

LaunchStats Device::launch(const Kernel& kernel, Dim3 grid, Dim3 block, const KernargBlock& kernarg,
                           const LaunchOptions& options) {
  return launch_on(*backend_, kernel, grid, block, kernarg, options);
}

}  // namespace cdna4
