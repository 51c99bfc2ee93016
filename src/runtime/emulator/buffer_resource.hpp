#pragma once
// Buffer resource descriptor (V#), its addressing and the gfx9 out-of-range rule
// as modelled here (docs/emulator.md "Memory" and "Buffer swizzle").
#include <cstdint>

namespace cdna4::emu {

struct BufferResource {
  uint64_t base = 0;
  uint32_t stride = 0;
  uint32_t num_records = 0;
  bool swizzle = false;
  bool add_tid = false;
  uint32_t element_size = 2;  // swizzle element, bytes
  uint32_t index_stride = 8;  // swizzle interleave, records

  // word1: base[47:32] in [15:0], stride [29:16], cache_swizzle [30], swizzle_enable [31];
  // word3: element_size [20:19] (2 << n), index_stride [22:21] (8 << n), add_tid_enable [23].
  static BufferResource from_sgprs(const uint32_t* w) {
    BufferResource r;
    r.base = w[0] | (uint64_t(w[1] & 0xffff) << 32);
    r.stride = (w[1] >> 16) & 0x3fff;
    r.swizzle = (w[1] >> 31) & 1;
    r.num_records = w[2];
    r.element_size = 2u << ((w[3] >> 19) & 3);
    r.index_stride = 8u << ((w[3] >> 21) & 3);
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

  // Byte offset from base + soffset of an access at `offset` (vgpr offset +
  // instruction offset) in record `index`. Swizzled addressing applies to indexed
  // accesses only; a raw access through a swizzle-enabled V# is linear.
  uint64_t lane_offset(bool indexed, uint32_t index, uint64_t offset) const {
    if (!indexed) return offset;
    if (!swizzle) return uint64_t(index) * stride + offset;
    uint64_t index_msb = index / index_stride, index_lsb = index % index_stride;
    uint64_t offset_msb = offset / element_size, offset_lsb = offset % element_size;
    return (index_msb * stride + offset_msb * element_size) * index_stride + index_lsb * element_size + offset_lsb;
  }
};

}  // namespace cdna4::emu
