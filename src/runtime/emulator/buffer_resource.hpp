#pragma once
// Buffer resource descriptor (V#) and the gfx9 out-of-range rule as modelled here.
#include <cstdint>

namespace cdna4::emu {

struct BufferResource {
  uint64_t base = 0;
  uint32_t stride = 0;
  uint32_t num_records = 0;
  bool swizzle = false;
  bool add_tid = false;

  static BufferResource from_sgprs(const uint32_t* w) {
    BufferResource r;
    r.base = w[0] | (uint64_t(w[1] & 0xffff) << 32);
    r.stride = (w[1] >> 16) & 0x3fff;
    r.swizzle = (w[1] >> 31) & 1;
    r.num_records = w[2];
    r.add_tid = (w[3] >> 23) & 1;
    return r;
  }

  // Raw buffers (no index or stride 0): bytes [offset, offset + size) must lie
  // below num_records, offset = vgpr offset + instruction offset + soffset.
  // Structured (index with stride): the index must be below num_records.
  bool in_range(bool indexed, uint32_t index, uint64_t offset, uint32_t size) const {
    if (indexed && stride != 0) return index < num_records;
    return offset + size <= num_records;
  }
  uint64_t address(bool indexed, uint32_t index, uint64_t offset) const {
    return base + (indexed ? uint64_t(index) * stride : 0) + offset;
  }
};

}  // namespace cdna4::emu
