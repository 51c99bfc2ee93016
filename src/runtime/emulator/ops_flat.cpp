// flat_load / flat_store: each lane's 64-bit address selects LDS (inside the
// shared aperture: LDS address = address - shared base), global memory
// (outside both apertures) or the lane's private segment (private aperture:
// private address = address - private base).
// The LDS lanes of an instruction complete on the LDS queue (lgkmcnt), the global
// lanes on the vector queue (vmcnt); see docs/emulator.md "Apertures and flat".
#include <fmt/format.h>

#include <cstring>

#include "runtime/emulator/aperture.hpp"
#include "runtime/emulator/flat_aux.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/lds_access.hpp"
#include "runtime/emulator/memory_timing.hpp"
#include "runtime/emulator/ops_common.hpp"
#include "runtime/emulator/private_memory.hpp"
#include "runtime/emulator/sub_dword.hpp"

namespace cdna4::emu {
namespace {

using namespace flat_aux;

// The part of a flat instruction on one queue: LDS lanes go to the LDS queue
// (lgkmcnt), global lanes to the vector queue (vmcnt).
PendingOp* begin_part(Wave& w, AsyncClass queue, bool store, const Inst& in, uint64_t lanes, uint32_t dwords) {
  if (!lanes) return nullptr;
  PendingOp& op = begin_op(w, queue);
  if (store) {
    op.target = queue == AsyncClass::Lds ? PendingOp::Target::Lds : PendingOp::Target::None;
    return &op;
  }
  op.target = PendingOp::Target::Vgpr;
  op.reg = in.dst[0].index;
  op.dwords = uint8_t(dwords);
  op.lanes = lanes;
  op.values.assign(size_t(dwords) * kLanes, 0);
  return &op;
}

// src[0] = vaddr (64-bit), src[1] = data (stores), dst[0] = vdst (loads).
void flat_op(Wave& w, const Inst& in) {
  uint32_t bytes = in.aux & 0x1f, dwords = (bytes + 3) / 4;
  bool store = in.aux & kStore;
  LaneValues lo, hi, data[4];
  fetch(w, in.src[0], lo, 0);
  fetch(w, in.src[0], hi, 1);
  if (store)
    for (uint32_t d = 0; d < dwords; ++d) fetch(w, in.src[1], data[d], d);
  uint64_t exec = w.exec(), address[kLanes], lds_lanes = 0;
  for (int l = 0; l < kLanes; ++l) {
    if (!((exec >> l) & 1)) continue;
    address[l] = (lo[l] | (uint64_t(hi[l]) << 32)) + uint64_t(in.offset);
    if (aperture::in_shared(address[l])) lds_lanes |= 1ull << l;
  }
  // LDS part first: its address checks and race tracking use the op about to be issued.
  if (PendingOp* op = begin_part(w, AsyncClass::Lds, store, in, lds_lanes, dwords)) {
    if (bytes < 4) w.wg->fail(w, in, "sub-dword flat access to LDS is not modelled");
    LdsLanes tracked(w, in, AsyncClass::Lds, store);
    for (int l = 0; l < kLanes; ++l) {
      if (!((lds_lanes >> l) & 1)) continue;
      uint32_t at = uint32_t(address[l] - aperture::kSharedBase);
      check_lds_range(w, in, at, bytes);
      for (uint32_t d = 0; d < dwords; ++d) {
        if (store) {
          op->lds_address.push_back(at + 4 * d);
          op->values.push_back(data[d][l]);
        } else {
          std::memcpy(&op->values[d * kLanes + l], w.wg->lds.data() + at + 4 * d, 4);
        }
      }
      tracked.add(at, bytes);
    }
    tracked.track();
    submit(w, in, *op);
  }
  const GlobalMemory& mem = *w.wg->memory;
  PendingOp* op = begin_part(w, AsyncClass::Vector, store, in, exec & ~lds_lanes, dwords);
  if (!op) return;
  const uint32_t* old = w.v(in.dst[0].index);
  for (int l = 0; l < kLanes; ++l) {
    if (!((exec & ~lds_lanes) >> l & 1)) continue;
    // A private-aperture lane reads and writes its own private segment, any other lane global memory.
    uint8_t* priv = aperture::in_private(address[l])
                        ? private_bytes(w, in, l, int64_t(address[l] - aperture::kPrivateBase), bytes)
                        : nullptr;
    if (!priv && !mem.contains(address[l], bytes))
      w.wg->fail(w, in, fmt::format("lane {}: access of {} bytes at 0x{:x} is outside every memory region", l, bytes,
                                    address[l]));
    auto write = [&](uint32_t at, const void* from, uint32_t n) {
      priv ? void(std::memcpy(priv + at, from, n)) : mem.write(address[l] + at, from, n);
    };
    auto read = [&](uint32_t at, void* to, uint32_t n) {
      priv ? void(std::memcpy(to, priv + at, n)) : mem.read(address[l] + at, to, n);
    };
    if (store) {
      if (bytes < 4) {
        uint32_t value = sub_dword::stored(data[0][l], in.aux & kD16Hi);
        write(0, &value, bytes);
      } else {
        for (uint32_t d = 0; d < dwords; ++d) write(4 * d, &data[d][l], 4);
      }
    } else if (bytes < 4) {
      uint32_t raw = 0;
      read(0, &raw, bytes);
      op->values[l] = sub_dword::loaded(load_form(in.aux), raw, old[l]);
    } else {
      for (uint32_t d = 0; d < dwords; ++d) read(4 * d, &op->values[d * kLanes + l], 4);
    }
  }
  submit(w, in, *op);
}

}  // namespace

void register_flat_memory(HandlerRegistry& r) {
  auto add = [&](const std::string& name, uint32_t aux) { r.add(name, {flat_op, OperandForm::GlobalMemory, 0, aux}); };
  for (auto [suffix, bytes] : {std::pair{"DWORD", 4u}, {"DWORDX2", 8u}, {"DWORDX3", 12u}, {"DWORDX4", 16u}}) {
    add(fmt::format("FLAT_LOAD_{}", suffix), bytes);
    add(fmt::format("FLAT_STORE_{}", suffix), bytes | kStore);
  }
  add("FLAT_LOAD_UBYTE", 1);
  add("FLAT_LOAD_SBYTE", 1 | kSigned);
  add("FLAT_LOAD_USHORT", 2);
  add("FLAT_LOAD_SSHORT", 2 | kSigned);
  add("FLAT_STORE_BYTE", 1 | kStore);
  add("FLAT_STORE_SHORT", 2 | kStore);
  add("FLAT_STORE_SHORT_D16_HI", 2 | kStore | kD16Hi);
  add("FLAT_STORE_BYTE_D16_HI", 1 | kStore | kD16Hi);
  add("FLAT_LOAD_UBYTE_D16", 1 | kD16);
  add("FLAT_LOAD_UBYTE_D16_HI", 1 | kD16Hi);
  add("FLAT_LOAD_SBYTE_D16", 1 | kSigned | kD16);
  add("FLAT_LOAD_SBYTE_D16_HI", 1 | kSigned | kD16Hi);
  add("FLAT_LOAD_SHORT_D16", 2 | kD16);
  add("FLAT_LOAD_SHORT_D16_HI", 2 | kD16Hi);
}

}  // namespace cdna4::emu
