// The emulator backend: buffers are host memory, launches run cdna4::emu::run.
// The model device is the same backend with the timing model traced alongside.
#include <fmt/format.h>

#include <cstring>
#include <mutex>
#include <optional>
#include <set>

#include "runtime/backend.hpp"
#include "runtime/emulator/emulator.hpp"
#include "runtime/model/launch_model.hpp"

namespace cdna4::detail {
namespace {

// Every live allocation of one emulator device: the memory a kernel may touch.
class Registry {
 public:
  void add(const uint8_t* base, size_t size) {
    std::lock_guard lock(mutex_);
    regions_.insert({base, size});
  }
  void remove(const uint8_t* base, size_t size) {
    std::lock_guard lock(mutex_);
    regions_.erase({base, size});
  }
  std::vector<emu::MemoryRegion> snapshot() const {
    std::lock_guard lock(mutex_);
    std::vector<emu::MemoryRegion> out;
    for (auto [base, size] : regions_) out.push_back({reinterpret_cast<uint64_t>(base), size});
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::set<std::pair<const uint8_t*, size_t>> regions_;
};

class HostAllocation : public Allocation {
 public:
  HostAllocation(size_t size, std::shared_ptr<Registry> registry)
      : size_(size), memory_(new (std::align_val_t(kAlign)) uint8_t[size ? size : 1]()),
        registry_(std::move(registry)) {
    registry_->add(memory_, size_);
  }
  ~HostAllocation() override {
    registry_->remove(memory_, size_);
    ::operator delete[](memory_, std::align_val_t(kAlign));
  }
  uint64_t address() const override { return reinterpret_cast<uint64_t>(memory_); }
  size_t size() const override { return size_; }
  // memcpy with a null pointer is undefined even for 0 bytes (an empty vector's data()).
  void write(size_t offset, const void* data, size_t bytes) override {
    if (bytes) std::memcpy(memory_ + offset, data, bytes);
  }
  void read(size_t offset, void* data, size_t bytes) const override {
    if (bytes) std::memcpy(data, memory_ + offset, bytes);
  }

 private:
  static constexpr size_t kAlign = 4096;
  size_t size_;
  uint8_t* memory_;
  std::shared_ptr<Registry> registry_;
};

class EmulatorBackend : public Backend {
 public:
  EmulatorBackend(const EmulatorConfig& config, bool model)
      : config_(config), model_(model), name_(model ? "model" : "emulator") {}

  const std::string& name() const override { return name_; }

  std::shared_ptr<Allocation> alloc(size_t bytes) override {
    return std::make_shared<HostAllocation>(bytes, registry_);
  }

  LaunchStats launch(const Kernel& kernel, const rt::DispatchGeometry& geometry,
                     const rt::ExplicitArgs& args, const LaunchOptions& options) override {
    if (geometry.has_partial_workgroups())
      throw Error(fmt::format("kernel {}: the emulator runs whole workgroups only; grid of ({},{},{}) "
                              "work-items is not a multiple of block ({},{},{})",
                              kernel.name(), geometry.grid_size[0], geometry.grid_size[1],
                              geometry.grid_size[2], geometry.block[0], geometry.block[1],
                              geometry.block[2]));
    emu::Dispatch dispatch;
    for (int a = 0; a < 3; ++a) {
      dispatch.grid[a] = geometry.workgroups[a];
      dispatch.block[a] = geometry.block[a];
    }
    dispatch.kernarg = args.kernarg(kernel.info(), geometry, {options.dynamic_lds, 0});
    dispatch.dynamic_lds = options.dynamic_lds;
    dispatch.regions = registry_->snapshot();

    emu::EmulatorOptions emu_options;
    emu_options.instant_completion = options.instant_completion.value_or(config_.instant_completion);
    emu_options.seed = options.seed.value_or(config_.seed);
    emu_options.max_delay = config_.max_delay;
    emu_options.timed = options.timed.value_or(config_.timed);
    emu_options.threads = config_.threads;
    emu_options.max_races = config_.max_races;
    emu_options.max_instructions = options.max_instructions.value_or(config_.max_instructions);
    emu_options.time_limit_seconds = options.time_limit_seconds.value_or(config_.time_limit_seconds);
    emu_options.cancel = options.cancel;
    emu_options.mfma_policy = config_.mfma_policy;
    if (options.on_progress)
      emu_options.on_progress = [&cb = options.on_progress](uint64_t done, uint64_t total, double seconds) {
        cb(LaunchProgress{done, total, seconds});
      };

    std::optional<model::LaunchModel> timing;
    if (model_) {
      timing.emplace(kernel.info(), dispatch, config_.model_timeline, config_.max_trace_bytes);
      emu_options.trace = timing->sink();
      emu_options.trace_only = config_.model_only;
    }

    emu::RunStats run = emu::run(kernel.code_object(), kernel.info(), dispatch, emu_options);
    LaunchStats stats;
    stats.seconds = run.seconds;
    stats.instructions = run.instructions;
    stats.mfma_macs = run.mfma_macs;
    stats.races = std::move(run.races);
    stats.dropped_races = run.dropped_races;
    if (timing) stats.model = timing->report(kernel.code_object());
    return stats;
  }

 private:
  EmulatorConfig config_;
  bool model_;
  std::string name_;
  std::shared_ptr<Registry> registry_ = std::make_shared<Registry>();
};

}  // namespace

std::shared_ptr<Backend> make_emulator_backend(const EmulatorConfig& config) {
  return std::make_shared<EmulatorBackend>(config, false);
}

std::shared_ptr<Backend> make_model_backend(const EmulatorConfig& config) {
  return std::make_shared<EmulatorBackend>(config, true);
}

}  // namespace cdna4::detail
