#pragma once
// The process's compile cache: kernels (GEMM and attention) compiled before, by
// key; once its entries hold more than a byte limit, the least recently used
// are dropped.
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>

#include "cdna4/attention.hpp"
#include "cdna4/gemm.hpp"

namespace cdna4::detail {

class CompileCache {
 public:
  static constexpr uint64_t kDefaultLimitBytes = uint64_t(64) << 20;  // ~500 kernels of 0.1 MB

  using Cached = std::variant<GemmKernel, AttentionKernel>;
  // The kernel under `key` if there is one of type K.
  template <class K = GemmKernel>
  std::optional<K> find(const std::string& key) {
    std::optional<Cached> hit = find_cached(key);
    if (!hit || !std::holds_alternative<K>(*hit)) return std::nullopt;
    return std::get<K>(std::move(*hit));
  }
  void insert(const std::string& key, const GemmKernel& kernel) { insert_cached(key, kernel); }
  void insert(const std::string& key, const AttentionKernel& kernel) { insert_cached(key, kernel); }
  void clear();
  void set_limit(uint64_t bytes);  // drops entries until they fit
  uint64_t bytes() const;
  size_t entries() const;

 private:
  std::optional<Cached> find_cached(const std::string& key);
  void insert_cached(const std::string& key, Cached kernel);
  using Entry = std::pair<std::string, Cached>;
  void evict();  // with mutex_ held
  mutable std::mutex mutex_;
  std::list<Entry> recent_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  std::unordered_map<std::string, uint64_t> sizes_;
  uint64_t bytes_ = 0;
  uint64_t limit_ = kDefaultLimitBytes;
};

CompileCache& compile_cache();

// About the host bytes a cached kernel holds: its key, code object (bytes and
// parsed), assembly text and schedule.
uint64_t cached_bytes(const std::string& key, const GemmKernel& kernel);
uint64_t cached_bytes(const std::string& key, const AttentionKernel& kernel);

}  // namespace cdna4::detail
