#include "runtime/emulator/global_memory.hpp"

#include <algorithm>

namespace cdna4::emu {

GlobalMemory::GlobalMemory(std::vector<MemoryRegion> regions) : regions_(std::move(regions)) {
  std::sort(regions_.begin(), regions_.end(), [](auto& a, auto& b) { return a.base < b.base; });
}

namespace {
bool inside(const MemoryRegion& r, uint64_t address, uint64_t bytes) {
  return address >= r.base && address - r.base <= r.size && bytes <= r.size - (address - r.base);
}
}  // namespace

bool GlobalMemory::contains(uint64_t address, uint64_t bytes) const {
  const MemoryRegion* hint = nullptr;
  return contains(address, bytes, hint);
}

bool GlobalMemory::contains(uint64_t address, uint64_t bytes, const MemoryRegion*& hint) const {
  if (hint && inside(*hint, address, bytes)) return true;
  auto it = std::upper_bound(regions_.begin(), regions_.end(), address,
                             [](uint64_t a, const MemoryRegion& r) { return a < r.base; });
  // A region with base <= address may be shadowed by an earlier, larger one; scan back.
  while (it != regions_.begin()) {
    --it;
    if (inside(*it, address, bytes)) {
      hint = &*it;
      return true;
    }
  }
  return false;
}

}  // namespace cdna4::emu
