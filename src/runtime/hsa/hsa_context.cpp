#include "runtime/hsa/hsa_context.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <vector>

#include "cdna4/error.hpp"
#include "runtime/hsa/agent_select.hpp"

namespace cdna4::hsa {
namespace {

struct FoundAgent {
  hsa_agent_t handle;
  AgentDescription description;
};

std::vector<FoundAgent> list_agents(const HsaApi& api) {
  struct Walk {
    const HsaApi* api;
    std::vector<FoundAgent> agents;
  } walk{&api, {}};
  auto visit = [](hsa_agent_t agent, void* data) -> hsa_status_t {
    auto& w = *static_cast<Walk*>(data);
    char name[64] = {};
    char product[64] = {};
    hsa_device_type_t type = HSA_DEVICE_TYPE_CPU;
    w.api->hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, name);
    w.api->hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
    w.api->hsa_agent_get_info(agent, hsa_agent_info_t(HSA_AMD_AGENT_INFO_PRODUCT_NAME), product);
    name[63] = product[63] = 0;
    w.agents.push_back({agent, {name, product, type == HSA_DEVICE_TYPE_GPU}});
    return HSA_STATUS_SUCCESS;
  };
  api.check(api.hsa_iterate_agents(visit, &walk), "hsa_iterate_agents");
  return walk.agents;
}

struct PoolInfo {
  hsa_amd_memory_pool_t pool;
  uint32_t flags;
};

std::vector<PoolInfo> global_pools(const HsaApi& api, hsa_agent_t agent) {
  struct Walk {
    const HsaApi* api;
    std::vector<PoolInfo> pools;
  } walk{&api, {}};
  auto visit = [](hsa_amd_memory_pool_t pool, void* data) -> hsa_status_t {
    auto& w = *static_cast<Walk*>(data);
    hsa_amd_segment_t segment{};
    bool alloc_allowed = false;
    uint32_t flags = 0;
    w.api->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
    w.api->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc_allowed);
    w.api->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
    if (segment == HSA_AMD_SEGMENT_GLOBAL && alloc_allowed) w.pools.push_back({pool, flags});
    return HSA_STATUS_SUCCESS;
  };
  api.check(api.hsa_amd_agent_iterate_memory_pools(agent, visit, &walk),
            "hsa_amd_agent_iterate_memory_pools");
  return walk.pools;
}

}  // namespace

HsaContext::HsaContext(std::shared_ptr<const HsaApi> api) : api_(std::move(api)) {
  hsa_status_t status = api_->hsa_init();
  if (status != HSA_STATUS_SUCCESS)
    throw Error(fmt::format("HSA runtime {}: hsa_init failed: {} (0x{:x}){}", api_->path,
                            api_->status_text(status), unsigned(status),
                            std::filesystem::exists("/dev/kfd") ? "" : " [no /dev/kfd: this machine has no AMD GPU driver]"));
  try {
    std::vector<FoundAgent> agents = list_agents(*api_);
    std::vector<AgentDescription> descriptions;
    for (const auto& a : agents) descriptions.push_back(a.description);
    const FoundAgent& gpu = agents[select_gfx950_agent(descriptions)];
    gpu_ = gpu.handle;
    description_ = "hsa:" + gpu.description.name +
                   (gpu.description.product_name.empty() ? "" : " (" + gpu.description.product_name + ")");
    bool have_cpu = false;
    for (const auto& a : agents)
      if (!a.description.is_gpu && !have_cpu) cpu_ = a.handle, have_cpu = true;
    if (!have_cpu) throw Error("HSA: no CPU agent for kernarg and host memory");
    find_pools();
  } catch (...) {
    api_->hsa_shut_down();
    throw;
  }
}

HsaContext::~HsaContext() { api_->hsa_shut_down(); }

void HsaContext::find_pools() {
  bool kernarg = false, host = false;
  for (const PoolInfo& p : global_pools(*api_, cpu_)) {
    if (!kernarg && (p.flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT)) kernarg_pool_ = p.pool, kernarg = true;
    if (!host && (p.flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED)) host_pool_ = p.pool, host = true;
  }
  if (!kernarg) throw Error("HSA: the CPU agent has no kernarg memory pool");
  if (!host) throw Error("HSA: the CPU agent has no fine-grained memory pool");
  for (const PoolInfo& p : global_pools(*api_, gpu_))
    if (!has_device_pool_ && (p.flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED))
      device_pool_ = p.pool, has_device_pool_ = true;
}

void* HsaContext::allocate(hsa_amd_memory_pool_t pool, size_t bytes, bool host) const {
  void* memory = nullptr;
  api_->check(api_->hsa_amd_memory_pool_allocate(pool, bytes ? bytes : 1, 0, &memory),
              fmt::format("allocating {} bytes", bytes));
  if (host) {
    hsa_status_t status = api_->hsa_amd_agents_allow_access(1, &gpu_, nullptr, memory);
    if (status != HSA_STATUS_SUCCESS) {
      api_->hsa_amd_memory_pool_free(memory);
      api_->check(status, "hsa_amd_agents_allow_access");
    }
  }
  return memory;
}

void HsaContext::free(void* memory) const {
  if (memory) api_->hsa_amd_memory_pool_free(memory);
}

}  // namespace cdna4::hsa
