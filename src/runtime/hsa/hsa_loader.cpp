#include "runtime/hsa/hsa_loader.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <mutex>

#include "cdna4/error.hpp"
#include "runtime/hsa/hsa_api.hpp"

namespace cdna4::hsa {

std::string HsaApi::status_text(hsa_status_t status) const {
  const char* text = nullptr;
  if (hsa_status_string && hsa_status_string(status, &text) == HSA_STATUS_SUCCESS && text)
    return text;
  return "unknown HSA status";
}

void HsaApi::check(hsa_status_t status, const std::string& what) const {
  if (status == HSA_STATUS_SUCCESS || status == HSA_STATUS_INFO_BREAK) return;
  throw Error(fmt::format("HSA: {} failed: {} (0x{:x})", what, status_text(status), unsigned(status)));
}

std::vector<std::string> default_runtime_candidates() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("HSA_RUNTIME_LIB"); env && *env) candidates.push_back(env);
  candidates.push_back("/opt/rocm/lib/libhsa-runtime64.so.1");
  candidates.push_back("libhsa-runtime64.so.1");
  return candidates;
}

namespace {

// Returns an empty string on success, else why the candidate is unusable.
std::string try_open(const std::string& path, HsaApi& api) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return why ? why : "dlopen failed";
  }
  std::string missing;
#define CDNA4_HSA_RESOLVE(fn)                                                 \
  api.fn = reinterpret_cast<decltype(&::fn)>(dlsym(handle, #fn));             \
  if (!api.fn) missing += (missing.empty() ? "" : ", ") + std::string(#fn);
  CDNA4_HSA_FUNCTIONS(CDNA4_HSA_RESOLVE)
#undef CDNA4_HSA_RESOLVE
  if (!missing.empty()) {
    dlclose(handle);
    return "not an HSA runtime: missing " + missing;
  }
  api.path = path;
  return {};
}

}  // namespace

std::shared_ptr<const HsaApi> load_runtime(const std::vector<std::string>& candidates) {
  std::string tried;
  for (const std::string& path : candidates) {
    auto api = std::make_shared<HsaApi>();
    std::string why = try_open(path, *api);
    if (why.empty()) return api;
    tried += fmt::format("{}{}: {}", tried.empty() ? "" : "; ", path, why);
  }
  throw Error(fmt::format("no HSA runtime found (tried {}); install ROCm >= 7.0 or set HSA_RUNTIME_LIB",
                          tried.empty() ? "nothing" : tried));
}

std::shared_ptr<const HsaApi> default_runtime() {
  static std::mutex mutex;
  static std::shared_ptr<const HsaApi> api;
  std::lock_guard lock(mutex);
  if (!api) api = load_runtime(default_runtime_candidates());
  return api;
}

}  // namespace cdna4::hsa
