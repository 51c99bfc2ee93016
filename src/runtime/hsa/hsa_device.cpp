// The HSA backend: a gfx950 agent of the ROCm runtime, one queue, code objects
// loaded from memory into frozen executables, AQL kernel dispatches.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <list>
#include <mutex>

#include "runtime/backend.hpp"
#include "runtime/hsa/aql_packet.hpp"
#include "runtime/hsa/hsa_context.hpp"
#include "runtime/hsa/hsa_loader.hpp"

namespace cdna4::detail {
namespace {

using hsa::HsaContext;

// VRAM when the agent has a coarse-grained pool (copied through a host staging
// buffer), otherwise fine-grained host memory the GPU may access.
class HsaAllocation : public Allocation {
 public:
  HsaAllocation(std::shared_ptr<const HsaContext> context, size_t size)
      : context_(std::move(context)), size_(size), on_device_(context_->has_device_pool()) {
    memory_ = context_->allocate(on_device_ ? context_->device_pool() : context_->host_pool(), size,
                                 !on_device_);
  }
  ~HsaAllocation() override { context_->free(memory_); }
  uint64_t address() const override { return reinterpret_cast<uint64_t>(memory_); }
  size_t size() const override { return size_; }

  void write(size_t offset, const void* data, size_t bytes) override {
    if (!on_device_) return void(std::memcpy(static_cast<uint8_t*>(memory_) + offset, data, bytes));
    Staging staging(*context_, bytes);
    std::memcpy(staging.memory, data, bytes);
    context_->api().check(
        context_->api().hsa_memory_copy(static_cast<uint8_t*>(memory_) + offset, staging.memory, bytes),
        "hsa_memory_copy to the device");
  }
  void read(size_t offset, void* data, size_t bytes) const override {
    if (!on_device_) return void(std::memcpy(data, static_cast<uint8_t*>(memory_) + offset, bytes));
    Staging staging(*context_, bytes);
    context_->api().check(
        context_->api().hsa_memory_copy(staging.memory, static_cast<uint8_t*>(memory_) + offset, bytes),
        "hsa_memory_copy from the device");
    std::memcpy(data, staging.memory, bytes);
  }

 private:
  struct Staging {
    Staging(const HsaContext& c, size_t bytes) : context(c), memory(c.allocate(c.host_pool(), bytes, true)) {}
    ~Staging() { context.free(memory); }
    const HsaContext& context;
    void* memory;
  };
  std::shared_ptr<const HsaContext> context_;
  size_t size_;
  bool on_device_;
  void* memory_ = nullptr;
};

struct LoadedKernel {
  uint64_t kernel_object = 0;
  uint32_t private_segment_size = 0;
  uint32_t group_segment_size = 0;
};

// A frozen executable per distinct code object, kept for the device's life.
class ExecutableCache {
 public:
  explicit ExecutableCache(std::shared_ptr<const HsaContext> context) : context_(std::move(context)) {}
  ~ExecutableCache() {
    for (auto& e : entries_) {
      context_->api().hsa_executable_destroy(e.executable);
      context_->api().hsa_code_object_reader_destroy(e.reader);
    }
  }

  LoadedKernel kernel(const Kernel& kernel) {
    const HsaApi& api = context_->api();
    Entry& entry = load(kernel.hsaco());
    std::string symbol_name = kernel.name() + ".kd";
    hsa_executable_symbol_t symbol;
    hsa_agent_t gpu = context_->gpu();
    api.check(api.hsa_executable_get_symbol_by_name(entry.executable, symbol_name.c_str(), &gpu, &symbol),
              "finding kernel symbol " + symbol_name);
    LoadedKernel loaded;
    api.check(api.hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT,
                                                 &loaded.kernel_object), "reading the kernel object");
    api.check(api.hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
                                                 &loaded.private_segment_size), "reading the private segment size");
    api.check(api.hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
                                                 &loaded.group_segment_size), "reading the group segment size");
    return loaded;
  }

 private:
  using HsaApi = hsa::HsaApi;
  struct Entry {
    std::vector<uint8_t> hsaco;
    hsa_code_object_reader_t reader{0};
    hsa_executable_t executable{0};
  };

  Entry& load(const std::vector<uint8_t>& hsaco) {
    for (Entry& e : entries_)
      if (e.hsaco == hsaco) return e;
    const HsaApi& api = context_->api();
    Entry entry{hsaco, {0}, {0}};
    api.check(api.hsa_code_object_reader_create_from_memory(entry.hsaco.data(), entry.hsaco.size(),
                                                            &entry.reader),
              "reading the code object");
    try {
      api.check(api.hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                              nullptr, &entry.executable),
                "creating an executable");
      api.check(api.hsa_executable_load_agent_code_object(entry.executable, context_->gpu(), entry.reader,
                                                          nullptr, nullptr),
                "loading the code object onto the gfx950 agent");
      api.check(api.hsa_executable_freeze(entry.executable, nullptr), "freezing the executable");
    } catch (...) {
      if (entry.executable.handle) api.hsa_executable_destroy(entry.executable);
      api.hsa_code_object_reader_destroy(entry.reader);
      throw;
    }
    entries_.push_back(std::move(entry));
    return entries_.back();
  }

  std::shared_ptr<const HsaContext> context_;
  std::list<Entry> entries_;
};

class HsaBackend : public Backend {
 public:
  explicit HsaBackend(std::shared_ptr<const HsaContext> context)
      : context_(std::move(context)), executables_(context_) {
    const auto& api = context_->api();
    uint32_t max_size = 0;
    api.check(api.hsa_agent_get_info(context_->gpu(), HSA_AGENT_INFO_QUEUE_MAX_SIZE, &max_size),
              "reading the queue size");
    api.check(api.hsa_queue_create(context_->gpu(), std::min<uint32_t>(max_size, 256), HSA_QUEUE_TYPE_MULTI,
                                   &HsaBackend::on_queue_error, this, UINT32_MAX, UINT32_MAX, &queue_),
              "creating a queue");
    profiling_ = api.hsa_amd_profiling_set_profiler_enabled(queue_, 1) == HSA_STATUS_SUCCESS;
    api.hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &timestamp_hz_);
  }
  ~HsaBackend() override { context_->api().hsa_queue_destroy(queue_); }

  const std::string& name() const override { return context_->description(); }

  std::shared_ptr<Allocation> alloc(size_t bytes) override {
    return std::make_shared<HsaAllocation>(context_, bytes);
  }

  LaunchStats launch(const Kernel& kernel, const rt::DispatchGeometry& geometry,
                     const rt::ExplicitArgs& args, const LaunchOptions& options) override {
    std::lock_guard lock(mutex_);
    const auto& api = context_->api();
    LoadedKernel loaded = executables_.kernel(kernel);
    std::vector<uint8_t> kernarg = args.kernarg(
        kernel.info(), geometry, {options.dynamic_lds, reinterpret_cast<uint64_t>(queue_)});

    void* kernarg_memory = context_->allocate(context_->kernarg_pool(), kernarg.size(), true);
    hsa_signal_t signal{0};
    try {
      std::memcpy(kernarg_memory, kernarg.data(), kernarg.size());
      api.check(api.hsa_signal_create(1, 0, nullptr, &signal), "creating the completion signal");
      hsa::DispatchResources resources{loaded.kernel_object, kernarg_memory, loaded.private_segment_size,
                                       loaded.group_segment_size + options.dynamic_lds, signal};
      auto start = std::chrono::steady_clock::now();
      submit(geometry, resources);
      wait(signal, kernel.name());
      LaunchStats stats;
      stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      hsa_amd_profiling_dispatch_time_t time{};
      if (profiling_ && timestamp_hz_ &&
          api.hsa_amd_profiling_get_dispatch_time(context_->gpu(), signal, &time) == HSA_STATUS_SUCCESS &&
          time.end > time.start)
        stats.seconds = double(time.end - time.start) / double(timestamp_hz_);
      api.hsa_signal_destroy(signal);
      context_->free(kernarg_memory);
      return stats;
    } catch (...) {
      if (signal.handle) api.hsa_signal_destroy(signal);
      context_->free(kernarg_memory);
      throw;
    }
  }

 private:
  static void on_queue_error(hsa_status_t status, hsa_queue_t*, void* self) {
    static_cast<HsaBackend*>(self)->queue_error_.store(status);
  }

  void submit(const rt::DispatchGeometry& geometry, const hsa::DispatchResources& resources) {
    const auto& api = context_->api();
    uint64_t index = api.hsa_queue_add_write_index_relaxed(queue_, 1);
    while (index - api.hsa_queue_load_read_index_scacquire(queue_) >= queue_->size) {
    }
    auto* packets = static_cast<hsa_kernel_dispatch_packet_t*>(queue_->base_address);
    hsa_kernel_dispatch_packet_t& packet = packets[index & (queue_->size - 1)];
    hsa::fill_dispatch_packet(packet, geometry, resources);
    hsa::publish_packet(packet, hsa::dispatch_packet_header());
    api.hsa_signal_store_screlease(queue_->doorbell_signal, hsa_signal_value_t(index));
  }

  void wait(hsa_signal_t signal, const std::string& kernel_name) {
    const auto& api = context_->api();
    // Wake up now and then to notice an asynchronous queue error (a memory
    // fault, an illegal instruction), after which the signal never completes.
    uint64_t tick = timestamp_hz_ ? timestamp_hz_ / 10 : 100000000;
    while (api.hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_LT, 1, tick, HSA_WAIT_STATE_BLOCKED) >= 1) {
      hsa_status_t error = queue_error_.load();
      if (error != HSA_STATUS_SUCCESS)
        throw Error(fmt::format("HSA: kernel {} failed on the queue: {} (0x{:x})", kernel_name,
                                api.status_text(error), unsigned(error)));
    }
  }

  std::shared_ptr<const HsaContext> context_;
  ExecutableCache executables_;
  hsa_queue_t* queue_ = nullptr;
  bool profiling_ = false;
  uint64_t timestamp_hz_ = 0;
  std::atomic<hsa_status_t> queue_error_{HSA_STATUS_SUCCESS};
  std::mutex mutex_;
};

}  // namespace

std::shared_ptr<Backend> make_hsa_backend() {
  auto context = std::make_shared<const HsaContext>(hsa::default_runtime());
  return std::make_shared<HsaBackend>(std::move(context));
}

}  // namespace cdna4::detail
