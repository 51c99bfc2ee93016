#pragma once
// Host memory a dispatch may touch. Device addresses are host addresses; every
// access is checked against the dispatch's regions.
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/emulator/emulator.hpp"

namespace cdna4::emu {

class GlobalMemory {
 public:
  explicit GlobalMemory(std::vector<MemoryRegion> regions);

  // True when [address, address + bytes) lies inside one region.
  bool contains(uint64_t address, uint64_t bytes) const;
  // The same, trying `hint` first (the region of a previous access, updated):
  // an instruction's lanes mostly fall into one region.
  bool contains(uint64_t address, uint64_t bytes, const MemoryRegion*& hint) const;

  void read(uint64_t address, void* out, size_t bytes) const { std::memcpy(out, reinterpret_cast<const void*>(address), bytes); }
  void write(uint64_t address, const void* in, size_t bytes) const { std::memcpy(reinterpret_cast<void*>(address), in, bytes); }

 private:
  std::vector<MemoryRegion> regions_;  // sorted by base
};

}  // namespace cdna4::emu
