// buffer_atomic_*, global_atomic_*, flat_atomic_* (global addresses). Each lane's
// read-modify-write is one host atomic at issue, in lane order; the pre-op value
// (RTN forms, sc0/glc) lands in vdst on completion, counted by vmcnt.
#include <fmt/format.h>

#include "runtime/emulator/aperture.hpp"
#include "runtime/emulator/atomic_arithmetic.hpp"
#include "runtime/emulator/buffer_resource.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/memory_timing.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

// aux: [4:0] AtomicOp, [5] 64-bit, [6] returns, [9:8] buffer addressing (bit 8 offen, bit 9 idxen),
// [10] flat addressing.
constexpr uint32_t kWide = 1 << 5, kReturns = 1 << 6, kOffen = 1 << 8, kIdxen = 1 << 9, kFlat = 1 << 10;

AtomicKind kind_of(const Inst& in) { return {AtomicOp(in.aux & 0x1f), (in.aux & kWide) != 0}; }

// Data dwords per lane: the operand, and for CMPSWAP the expected value after it.
struct AtomicData {
  LaneValues d[4];
  uint32_t dwords = 1;
  uint64_t data(int l, bool wide) const { return wide ? (d[0][l] | uint64_t(d[1][l]) << 32) : d[0][l]; }
  uint64_t compare(int l, bool wide) const {
    return wide ? (d[2][l] | uint64_t(d[3][l]) << 32) : d[1][l];
  }
};

void fetch_data(const Wave& w, const Operand& src, AtomicKind kind, AtomicData& data) {
  data.dwords = (kind.wide ? 2 : 1) * (kind.op == AtomicOp::CmpSwap ? 2 : 1);
  for (uint32_t d = 0; d < data.dwords; ++d) fetch(w, src, data.d[d], d);
}

// Applies the lane's atomic at `address` (already range-checked) and returns the old value.
uint64_t apply_lane(Wave& w, const Inst& in, AtomicKind kind, uint64_t address, uint64_t data, uint64_t compare,
                    int lane) {
  uint32_t bytes = kind.wide ? 8 : 4;
  if (!w.wg->memory->contains(address, bytes))
    w.wg->fail(w, in, fmt::format("lane {}: atomic of {} bytes at 0x{:x} is outside every memory region", lane,
                                  bytes, address));
  if (address % bytes != 0)
    w.wg->fail(w, in, fmt::format("lane {}: atomic at 0x{:x} is not {}-byte aligned", lane, address, bytes));
  return atomic_apply(kind, address, data, compare);
}

void finish(Wave& w, const Inst& in, AtomicKind kind, uint64_t exec, const uint64_t* old) {
  PendingOp& op = begin_op(w, AsyncClass::Vector);
  if (in.aux & kReturns) {
    uint32_t dwords = kind.wide ? 2 : 1;
    op.target = PendingOp::Target::Vgpr;
    op.reg = in.dst[0].index;
    op.dwords = uint8_t(dwords);
    op.lanes = exec;
    op.values.assign(size_t(dwords) * kLanes, 0);
    for (int l = 0; l < kLanes; ++l)
      for (uint32_t d = 0; d < dwords; ++d) op.values[d * kLanes + l] = uint32_t(old[l] >> (32 * d));
  }
  submit(w, in, op);
}

// MUBUF: src[0] = data, src[1] = vaddr, src[2] = V#, src[3] = soffset. Atomics are
// range-checked all or nothing; an out-of-range lane does nothing and returns 0.
void buffer_atomic(Wave& w, const Inst& in) {
  uint32_t words[4];
  for (int i = 0; i < 4; ++i) words[i] = w.sgpr[in.src[2].index + i];
  BufferResource rsrc = BufferResource::from_sgprs(words);
  if (rsrc.add_tid) w.wg->fail(w, in, "add-tid buffer resources are not modelled");
  AtomicKind kind = kind_of(in);
  bool offen = in.aux & kOffen, idxen = in.aux & kIdxen;
  LaneValues v0, v1;
  if (offen || idxen) fetch(w, in.src[1], v0, 0);
  if (offen && idxen) fetch(w, in.src[1], v1, 1);
  AtomicData data;
  fetch_data(w, in.src[0], kind, data);
  uint32_t soffset = scalar_u32(w, in.src[3]);
  uint64_t exec = w.exec(), old[kLanes] = {};
  for (int l = 0; l < kLanes; ++l) {
    if (!((exec >> l) & 1)) continue;
    uint32_t index = idxen ? v0[l] : 0;
    uint32_t voff = offen ? (idxen ? v1[l] : v0[l]) : 0;
    uint64_t offset = uint64_t(voff) + uint64_t(in.offset & 0xfff);
    if (!rsrc.in_range(idxen, index, offset + soffset, kind.wide ? 8 : 4)) continue;
    uint64_t address = rsrc.base + soffset + rsrc.lane_offset(idxen, index, offset);
    old[l] = apply_lane(w, in, kind, address, data.data(l, kind.wide), data.compare(l, kind.wide), l);
  }
  finish(w, in, kind, exec, old);
}

// global: src[0] = vaddr (64-bit, or 32-bit offset with saddr), src[1] = data,
// src[2] = saddr. flat: vaddr only, and the address must be global (not an aperture).
void global_atomic(Wave& w, const Inst& in) {
  AtomicKind kind = kind_of(in);
  bool saddr = in.src[2].kind == OperandKind::Sgpr;
  LaneValues lo, hi;
  fetch(w, in.src[0], lo, 0);
  if (!saddr) fetch(w, in.src[0], hi, 1);
  uint64_t base = saddr ? scalar_u64(w, in.src[2]) : 0;
  AtomicData data;
  fetch_data(w, in.src[1], kind, data);
  uint64_t exec = w.exec(), old[kLanes] = {};
  for (int l = 0; l < kLanes; ++l) {
    if (!((exec >> l) & 1)) continue;
    uint64_t address = (saddr ? base + lo[l] : (lo[l] | (uint64_t(hi[l]) << 32))) + uint64_t(in.offset);
    if ((in.aux & kFlat) && (aperture::in_shared(address) || aperture::in_private(address)))
      w.wg->fail(w, in, fmt::format("lane {}: flat atomic at 0x{:x} targets the {} aperture, which is not modelled",
                                    l, address, aperture::in_shared(address) ? "LDS" : "private"));
    old[l] = apply_lane(w, in, kind, address, data.data(l, kind.wide), data.compare(l, kind.wide), l);
  }
  finish(w, in, kind, exec, old);
}

constexpr const char* kNames[] = {"SWAP", "CMPSWAP", "ADD",  "SUB",     "SMIN",       "UMIN",       "SMAX",
                                  "UMAX", "AND",     "OR",   "XOR",     "INC",        "DEC",        "ADD_F32",
                                  "PK_ADD_F16", "PK_ADD_BF16"};

}  // namespace

void register_vector_atomic(HandlerRegistry& r) {
  for (const char* name : kNames) {
    for (bool wide : {false, true}) {
      std::string op = fmt::format("{}{}", name, wide ? "_X2" : "");
      AtomicKind kind;
      if (!parse_atomic(op, kind)) continue;
      uint32_t base_aux = uint32_t(kind.op) | (wide ? kWide : 0);
      for (bool rtn : {false, true}) {
        uint32_t a = base_aux | (rtn ? kReturns : 0);
        const char* suffix = rtn ? "_RTN" : "";
        for (auto [mode, bits] : {std::pair{"_OFFSET", 0u}, {"_OFFEN", kOffen}, {"_IDXEN", kIdxen}, {"_BOTHEN", kOffen | kIdxen}})
          r.add(fmt::format("BUFFER_ATOMIC_{}{}{}", op, mode, suffix), {buffer_atomic, OperandForm::BufferMemory, 0, a | bits});
        r.add(fmt::format("GLOBAL_ATOMIC_{}{}", op, suffix), {global_atomic, OperandForm::GlobalMemory, 0, a});
        r.add(fmt::format("GLOBAL_ATOMIC_{}_SADDR{}", op, suffix), {global_atomic, OperandForm::GlobalMemory, 0, a});
        r.add(fmt::format("FLAT_ATOMIC_{}{}", op, suffix), {global_atomic, OperandForm::GlobalMemory, 0, a | kFlat});
      }
    }
  }
}

}  // namespace cdna4::emu
