#include "codegen/gemm/compile_cache.hpp"

namespace cdna4 {
namespace detail {

namespace {

template <class K>
uint64_t kernel_bytes(const std::string& key, const K& k) {
  return sizeof(K) + key.size() + 2 * k.kernel.hsaco().size() + k.assembly.size() +
         k.schedule.ops.size() * sizeof(k.schedule.ops.front());
}

}  // namespace

uint64_t cached_bytes(const std::string& key, const GemmKernel& k) { return kernel_bytes(key, k); }
uint64_t cached_bytes(const std::string& key, const AttentionKernel& k) { return kernel_bytes(key, k); }

std::optional<CompileCache::Cached> CompileCache::find_cached(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) return std::nullopt;
  recent_.splice(recent_.begin(), recent_, it->second);
  return it->second->second;
}

void CompileCache::insert_cached(const std::string& key, Cached kernel) {
  const uint64_t size = std::visit([&](const auto& k) { return cached_bytes(key, k); }, kernel);
  std::lock_guard lock(mutex_);
  if (index_.count(key)) return;  // compiled meanwhile by another thread
  recent_.emplace_front(key, std::move(kernel));
  index_[key] = recent_.begin();
  sizes_[key] = size;
  bytes_ += size;
  evict();
}

void CompileCache::clear() {
  std::lock_guard lock(mutex_);
  recent_.clear();
  index_.clear();
  sizes_.clear();
  bytes_ = 0;
}

void CompileCache::set_limit(uint64_t bytes) {
  std::lock_guard lock(mutex_);
  limit_ = bytes;
  evict();
}

uint64_t CompileCache::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

size_t CompileCache::entries() const {
  std::lock_guard lock(mutex_);
  return recent_.size();
}

void CompileCache::evict() {
  while (bytes_ > limit_ && !recent_.empty()) {
    const std::string& key = recent_.back().first;
    bytes_ -= sizes_.at(key);
    sizes_.erase(key);
    index_.erase(key);
    recent_.pop_back();
  }
}

CompileCache& compile_cache() {
  static CompileCache cache;
  return cache;
}

}  // namespace detail

void clear_compile_cache() { detail::compile_cache().clear(); }

}  // namespace cdna4
