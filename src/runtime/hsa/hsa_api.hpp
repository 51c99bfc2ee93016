#pragma once
// The ROCm HSA runtime's C API, resolved with dlsym from a library opened at run
// time. The ROCm 5.2 headers only give the types: the functions used here are
// the stable part of the API that ROCm >= 7.0 still exports.
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <string>

namespace cdna4::hsa {

struct HsaApi {
  std::string path;  // the library that was opened
#define CDNA4_HSA_FUNCTIONS(X)                                                            \
  X(hsa_init) X(hsa_shut_down) X(hsa_status_string) X(hsa_system_get_info)                \
  X(hsa_iterate_agents) X(hsa_agent_get_info)                                             \
  X(hsa_amd_agent_iterate_memory_pools) X(hsa_amd_memory_pool_get_info)                   \
  X(hsa_amd_memory_pool_allocate) X(hsa_amd_memory_pool_free) X(hsa_amd_agents_allow_access) \
  X(hsa_memory_copy)                                                                      \
  X(hsa_code_object_reader_create_from_memory) X(hsa_code_object_reader_destroy)          \
  X(hsa_executable_create_alt) X(hsa_executable_load_agent_code_object)                   \
  X(hsa_executable_freeze) X(hsa_executable_get_symbol_by_name)                           \
  X(hsa_executable_symbol_get_info) X(hsa_executable_destroy)                             \
  X(hsa_queue_create) X(hsa_queue_destroy) X(hsa_queue_add_write_index_relaxed)           \
  X(hsa_queue_load_read_index_scacquire)                                                  \
  X(hsa_signal_create) X(hsa_signal_destroy) X(hsa_signal_store_relaxed)                  \
  X(hsa_signal_store_screlease) X(hsa_signal_wait_scacquire)                              \
  X(hsa_amd_profiling_set_profiler_enabled) X(hsa_amd_profiling_get_dispatch_time)
#define CDNA4_HSA_DECLARE(fn) decltype(&::fn) fn = nullptr;
  CDNA4_HSA_FUNCTIONS(CDNA4_HSA_DECLARE)
#undef CDNA4_HSA_DECLARE

  // Throws cdna4::Error "<what> failed: <hsa_status_string> (0x<code>)" unless
  // status is HSA_STATUS_SUCCESS (or HSA_STATUS_INFO_BREAK).
  void check(hsa_status_t status, const std::string& what) const;
  std::string status_text(hsa_status_t status) const;
};

}  // namespace cdna4::hsa
