// DS lane exchanges that never touch LDS memory: ds_bpermute_b32 (each lane
// pulls from a lane it names), ds_permute_b32 (each lane pushes to one) and
// ds_swizzle_b32 (a fixed pattern from the offset). They go through the LDS
// pipeline, so they are counted by lgkmcnt and land on completion like DS
// reads, but they neither read nor write LDS, so the LDS race tracker never
// sees them. Semantics: the ISA guides' pseudocode (a lane index is taken from
// the byte address (ADDR + offset) / 4 mod 64; reading an inactive lane gives
// 0; for permute the highest source lane wins; only active lanes are written).
#include <cstring>

#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/memory_timing.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

void land(Wave& w, const Inst& in, const uint32_t* result, uint64_t exec) {
  PendingOp& op = begin_op(w, AsyncClass::Lds);
  op.target = PendingOp::Target::Vgpr;
  op.reg = in.dst[0].index;
  op.dwords = 1;
  op.lanes = exec;
  op.values.assign(result, result + kLanes);
  submit(w, in, op);
}

uint32_t lane_of(uint32_t address, int64_t offset) { return ((address + uint32_t(offset & 0xffff)) >> 2) & 63; }

// src[0] = address, src[1] = data
void ds_bpermute(Wave& w, const Inst& in) {
  LaneValues address, data, result = {};
  fetch(w, in.src[0], address);
  fetch(w, in.src[1], data);
  const uint64_t exec = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    uint32_t from = lane_of(address[l], in.offset);
    if ((exec >> from) & 1) result[l] = data[from];
  }
  land(w, in, result, exec);
}

void ds_permute(Wave& w, const Inst& in) {
  LaneValues address, data, result = {};
  fetch(w, in.src[0], address);
  fetch(w, in.src[1], data);
  const uint64_t exec = w.exec();
  for (int l = 0; l < kLanes; ++l)
    if ((exec >> l) & 1) result[lane_of(address[l], in.offset)] = data[l];
  land(w, in, result, exec);
}

uint32_t reverse5(uint32_t x) {
  uint32_t r = 0;
  for (int b = 0; b < 5; ++b) r |= ((x >> b) & 1) << (4 - b);
  return r;
}

// The lane lane `i` reads for ds_swizzle_b32 offset `o` (16 bits).
uint32_t swizzle_source(uint32_t o, uint32_t i) {
  const uint32_t group = i & 0x20, mask = o & 0x1f;
  if (o >= 0xe000) {  // FFT
    uint32_t j = reverse5(i & 0x1f) >> std::popcount(mask);
    return j | (i & mask) | group;
  }
  if (o >= 0xc000) {  // rotate within 32 lanes: left (o[10] = 0) takes lane i + n, right lane i - n
    uint32_t n = (o >> 5) & 0x1f, moved = (o & 0x400) ? i - n : i + n;
    return (((i & mask) | (moved & ~mask)) & 0x1f) | group;
  }
  if (o & 0x8000) return (i & ~3u) | ((o >> (2 * (i & 3))) & 3);  // quad permute
  uint32_t and_mask = o & 0x1f, or_mask = (o >> 5) & 0x1f, xor_mask = (o >> 10) & 0x1f;  // bit masks, 32 lanes
  return ((((i & 0x1f) & and_mask) | or_mask) ^ xor_mask) | group;
}

// src[0] = data
void ds_swizzle(Wave& w, const Inst& in) {
  LaneValues data, result = {};
  fetch(w, in.src[0], data);
  const uint64_t exec = w.exec();
  const uint32_t o = uint32_t(in.offset & 0xffff);
  for (uint32_t l = 0; l < kLanes; ++l) {
    uint32_t from = swizzle_source(o, l);
    if ((exec >> from) & 1) result[l] = data[from];
  }
  land(w, in, result, exec);
}

}  // namespace

void register_lane_exchange(HandlerRegistry& r) {
  r.add("DS_BPERMUTE_B32", {ds_bpermute, OperandForm::LocalMemory, 0, 0});
  r.add("DS_PERMUTE_B32", {ds_permute, OperandForm::LocalMemory, 0, 0});
  r.add("DS_SWIZZLE_B32", {ds_swizzle, OperandForm::LocalMemory, 0, 0});
}

}  // namespace cdna4::emu
