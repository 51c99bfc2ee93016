// SMEM writes: s_store_dword*, s_buffer_store_dword*, s_atomic_*, s_buffer_atomic_*,
// s_dcache_wb / s_dcache_inv. All are counted by lgkmcnt on the out-of-order
// scalar queue. There is no scalar cache: stores and atomics act on memory at
// issue, so s_dcache_wb only occupies the queue (docs/emulator.md "Scalar stores").
#include <fmt/format.h>

#include <optional>
#include <string>

#include "runtime/emulator/atomic_arithmetic.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/memory_timing.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

// aux: [4:0] AtomicOp, [5] 64-bit, [6] returns the pre-op value, [7] buffer (V#) form,
// [11:8] dwords stored (stores only).
constexpr uint32_t kWide = 1 << 5, kReturns = 1 << 6, kBuffer = 1 << 7;

uint32_t atomic_aux(AtomicKind k, bool returns, bool buffer) {
  return uint32_t(k.op) | (k.wide ? kWide : 0) | (returns ? kReturns : 0) | (buffer ? kBuffer : 0);
}

// Operands: src[0] = data, src[1] = sbase (address pair or V#), src[2] = soffset register if any.
int64_t smem_offset(const Wave& w, const Inst& in) {
  int64_t offset = in.offset & 0x1fffff;  // 21-bit signed immediate
  if (offset & 0x100000) offset -= 0x200000;
  if (in.num_src > 2) offset += scalar_u32(w, in.src[2]);
  return offset;
}

// The address of a `bytes`-long access `at` bytes past the instruction's offset, or
// nullopt when a buffer access is out of range (stores drop such dwords, atomics do
// nothing and return 0).
std::optional<uint64_t> smem_address(Wave& w, const Inst& in, uint32_t at, uint32_t bytes) {
  int64_t offset = smem_offset(w, in) + at;
  uint64_t address;
  if (in.aux & kBuffer) {
    const uint32_t* rsrc = &w.sgpr[in.src[1].index];
    offset &= ~3ll;
    if (offset < 0 || offset + bytes > int64_t(rsrc[2])) return std::nullopt;
    address = (rsrc[0] | (uint64_t(rsrc[1] & 0xffff) << 32)) + uint64_t(offset);
  } else {
    address = (scalar_u64(w, in.src[1]) + uint64_t(offset)) & ~3ull;
  }
  if (!w.wg->memory->contains(address, bytes))
    w.wg->fail(w, in, fmt::format("scalar access of {} bytes at 0x{:x} is outside every memory region", bytes, address));
  return address;
}

void s_store(Wave& w, const Inst& in) {
  uint32_t dwords = (in.aux >> 8) & 0xf;
  for (uint32_t d = 0; d < dwords; ++d)
    if (auto address = smem_address(w, in, 4 * d, 4)) w.wg->memory->write(*address, &w.sgpr[in.src[0].index + d], 4);
  submit(w, in, begin_op(w, AsyncClass::Scalar));
}

void s_atomic(Wave& w, const Inst& in) {
  AtomicKind kind{AtomicOp(in.aux & 0x1f), (in.aux & kWide) != 0};
  uint32_t bytes = kind.wide ? 8 : 4;
  uint64_t data = kind.wide ? w.s64(in.src[0].index) : w.sgpr[in.src[0].index];
  // CMPSWAP: data = {new value, expected value}, each `bytes` long.
  uint64_t compare = 0;
  if (kind.op == AtomicOp::CmpSwap)
    compare = kind.wide ? w.s64(in.src[0].index + 2) : w.sgpr[in.src[0].index + 1];
  uint64_t old = 0;
  if (auto address = smem_address(w, in, 0, bytes)) {
    if (*address % bytes != 0) w.wg->fail(w, in, fmt::format("64-bit scalar atomic at unaligned 0x{:x}", *address));
    old = atomic_apply(kind, *address, data, compare);
  }
  PendingOp& op = begin_op(w, AsyncClass::Scalar);
  if (in.aux & kReturns) {
    op.target = PendingOp::Target::Sgpr;
    op.reg = in.dst[0].index;
    op.dwords = kind.wide ? 2 : 1;
    op.values.assign({uint32_t(old), uint32_t(old >> 32)});
    op.values.resize(op.dwords);
  }
  submit(w, in, op);
}

void s_dcache(Wave& w, const Inst& in) { submit(w, in, begin_op(w, AsyncClass::Scalar)); }

constexpr const char* kForms[] = {"_IMM", "_SGPR", "_SGPR_IMM"};
constexpr const char* kAtomicNames[] = {"SWAP", "CMPSWAP", "ADD", "SUB", "SMIN", "UMIN", "SMAX", "UMAX",
                                        "AND",  "OR",      "XOR", "INC", "DEC"};

}  // namespace

void register_scalar_store(HandlerRegistry& r) {
  for (const char* form : kForms) {
    for (auto [suffix, dwords] : {std::pair{"", 1u}, {"X2", 2u}, {"X4", 4u}}) {
      r.add(fmt::format("S_STORE_DWORD{}{}", suffix, form), {s_store, OperandForm::ScalarMemory, 0, dwords << 8});
      r.add(fmt::format("S_BUFFER_STORE_DWORD{}{}", suffix, form),
            {s_store, OperandForm::ScalarMemory, 0, (dwords << 8) | kBuffer});
    }
    for (const char* name : kAtomicNames) {
      for (bool wide : {false, true}) {
        AtomicKind kind;
        parse_atomic(name, kind);
        kind.wide = wide;
        std::string base = fmt::format("{}{}", name, wide ? "_X2" : "");
        for (bool buffer : {false, true}) {
          std::string full = fmt::format("S_{}ATOMIC_{}{}", buffer ? "BUFFER_" : "", base, form);
          r.add(full, {s_atomic, OperandForm::ScalarMemory, 0, atomic_aux(kind, false, buffer)});
          r.add(full + "_RTN", {s_atomic, OperandForm::ScalarMemory, 0, atomic_aux(kind, true, buffer)});
        }
      }
    }
  }
  r.add("S_DCACHE_WB", {s_dcache, OperandForm::ScalarMemory, 0, 0});
  r.add("S_DCACHE_INV", {s_dcache, OperandForm::ScalarMemory, 0, 0});
}

}  // namespace cdna4::emu
