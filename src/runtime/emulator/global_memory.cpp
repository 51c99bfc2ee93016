#include "runtime/emulator/global_memory.hpp"

#include <algorithm>

namespace cdna4::emu {

GlobalMemory::GlobalMemory(std::vector<MemoryRegion> regions) : regions_(std::move(regions)) {
  std::sort(regions_.begin(), regions_.end(), [](auto& a, auto& b) { return a.base < b.base; });
}

bool GlobalMemory::contains(uint64_t address, uint64_t bytes) const {
  auto it = std::upper_bound(regions_.begin(), regions_.end(), address,
                             [](uint64_t a, const MemoryRegion& r) { return a < r.base; });
  // A region with base <= address may be shadowed by an earlier, larger one; scan back.
  while (it != regions_.begin()) {
    --it;
    if (address >= it->base && address - it->base <= it->size && bytes <= it->size - (address - it->base))
      return true;
  }
  return false;
}

}  // namespace cdna4::emu
