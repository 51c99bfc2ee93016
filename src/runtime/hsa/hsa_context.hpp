#pragma once
// An initialised HSA runtime with its gfx950 agent and the memory pools used.
#include <memory>
#include <string>

#include "runtime/hsa/hsa_api.hpp"

namespace cdna4::hsa {

class HsaContext {
 public:
  // hsa_init, then finds the gfx950 agent and its pools. Throws cdna4::Error.
  explicit HsaContext(std::shared_ptr<const HsaApi> api);
  ~HsaContext();  // hsa_shut_down
  HsaContext(const HsaContext&) = delete;
  HsaContext& operator=(const HsaContext&) = delete;

  const HsaApi& api() const { return *api_; }
  hsa_agent_t gpu() const { return gpu_; }
  const std::string& description() const { return description_; }
  hsa_amd_memory_pool_t kernarg_pool() const { return kernarg_pool_; }
  hsa_amd_memory_pool_t host_pool() const { return host_pool_; }  // fine-grained system memory
  bool has_device_pool() const { return has_device_pool_; }
  hsa_amd_memory_pool_t device_pool() const { return device_pool_; }  // coarse-grained VRAM

  // Allocates from `pool`; host pool memory is made accessible to the GPU.
  void* allocate(hsa_amd_memory_pool_t pool, size_t bytes, bool host) const;
  void free(void* memory) const;

 private:
  void find_pools();
  std::shared_ptr<const HsaApi> api_;
  hsa_agent_t gpu_{0};
  hsa_agent_t cpu_{0};
  std::string description_;
  hsa_amd_memory_pool_t kernarg_pool_{0}, host_pool_{0}, device_pool_{0};
  bool has_device_pool_ = false;
};

}  // namespace cdna4::hsa
