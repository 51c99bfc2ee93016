#pragma once
// Finding and opening the ROCm HSA runtime library.
#include <memory>
#include <string>
#include <vector>

namespace cdna4::hsa {

struct HsaApi;

// $HSA_RUNTIME_LIB (when set), /opt/rocm/lib/libhsa-runtime64.so.1, then the soname.
std::vector<std::string> default_runtime_candidates();

// dlopens the first candidate that loads and exports every function HsaApi
// needs. Throws cdna4::Error "no HSA runtime found (tried A: why; B: why)".
// The library stays loaded for the life of the process.
std::shared_ptr<const HsaApi> load_runtime(const std::vector<std::string>& candidates);

// load_runtime(default_runtime_candidates()), done once per process.
std::shared_ptr<const HsaApi> default_runtime();

}  // namespace cdna4::hsa
