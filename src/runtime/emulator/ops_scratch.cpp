// scratch_load / scratch_store (gfx940+ architected flat scratch): lane l
// accesses private address [vaddr[l]] + [saddr] + offset of its own segment
// (the four LLVM forms: _VE/plain vaddr only, _SADDR, _SVS both, _ST neither).
// Counted by vmcnt. Loads sample at issue and land on completion; stores write
// at issue. Each lane owns its segment, so no other wave can race with it and
// one wave's accesses take effect in program order, as the hardware keeps a
// wave's accesses to one address in order.
#include <fmt/format.h>

#include <cstring>

#include "runtime/emulator/flat_aux.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/memory_timing.hpp"
#include "runtime/emulator/ops_common.hpp"
#include "runtime/emulator/private_memory.hpp"
#include "runtime/emulator/sub_dword.hpp"

namespace cdna4::emu {
namespace {

using namespace flat_aux;

// src[0] = vaddr (None without), src[1] = data (stores), src[2] = saddr (None without).
void scratch_op(Wave& w, const Inst& in) {
  const uint32_t bytes = in.aux & 0x1f, dwords = (bytes + 3) / 4;
  const bool store = in.aux & kStore;
  LaneValues vaddr, data[4];
  if (in.src[0].kind == OperandKind::Vgpr) fetch(w, in.src[0], vaddr);
  else std::memset(vaddr, 0, sizeof vaddr);
  const int64_t base = (in.src[2].kind == OperandKind::Sgpr ? int64_t(w.sgpr[in.src[2].index]) : 0) + in.offset;
  const uint64_t exec = w.exec();
  if (store) {
    for (uint32_t d = 0; d < dwords; ++d) fetch(w, in.src[1], data[d], d);
    for (int l = 0; l < kLanes; ++l) {
      if (!((exec >> l) & 1)) continue;
      uint8_t* at = private_bytes(w, in, l, base + vaddr[l], bytes);
      if (bytes < 4) {
        uint32_t value = sub_dword::stored(data[0][l], in.aux & kD16Hi);
        std::memcpy(at, &value, bytes);
      } else {
        for (uint32_t d = 0; d < dwords; ++d) std::memcpy(at + 4 * d, &data[d][l], 4);
      }
    }
    submit(w, in, begin_op(w, AsyncClass::Vector));
    return;
  }
  PendingOp& op = begin_op(w, AsyncClass::Vector);
  op.target = PendingOp::Target::Vgpr;
  op.reg = in.dst[0].index;
  op.dwords = uint8_t(dwords);
  op.lanes = exec;
  op.values.assign(size_t(dwords) * kLanes, 0);
  const sub_dword::LoadForm form = load_form(in.aux);
  const uint32_t* old = w.v(in.dst[0].index);
  for (int l = 0; l < kLanes; ++l) {
    if (!((exec >> l) & 1)) continue;
    const uint8_t* at = private_bytes(w, in, l, base + vaddr[l], bytes);
    if (bytes < 4) {
      uint32_t raw = 0;
      std::memcpy(&raw, at, bytes);
      op.values[l] = sub_dword::loaded(form, raw, old[l]);
    } else {
      for (uint32_t d = 0; d < dwords; ++d) std::memcpy(&op.values[d * kLanes + l], at + 4 * d, 4);
    }
  }
  submit(w, in, op);
}

}  // namespace

void register_scratch_memory(HandlerRegistry& r) {
  struct Row {
    const char* name;
    uint32_t aux;
  };
  static constexpr Row kRows[] = {
      {"LOAD_DWORD", 4},          {"LOAD_DWORDX2", 8},          {"LOAD_DWORDX3", 12},
      {"LOAD_DWORDX4", 16},       {"STORE_DWORD", 4 | kStore},  {"STORE_DWORDX2", 8 | kStore},
      {"STORE_DWORDX3", 12 | kStore}, {"STORE_DWORDX4", 16 | kStore},
      {"LOAD_UBYTE", 1},          {"LOAD_SBYTE", 1 | kSigned},  {"LOAD_USHORT", 2},
      {"LOAD_SSHORT", 2 | kSigned}, {"STORE_BYTE", 1 | kStore}, {"STORE_SHORT", 2 | kStore},
      {"STORE_BYTE_D16_HI", 1 | kStore | kD16Hi}, {"STORE_SHORT_D16_HI", 2 | kStore | kD16Hi},
      {"LOAD_UBYTE_D16", 1 | kD16}, {"LOAD_UBYTE_D16_HI", 1 | kD16Hi},
      {"LOAD_SBYTE_D16", 1 | kSigned | kD16}, {"LOAD_SBYTE_D16_HI", 1 | kSigned | kD16Hi},
      {"LOAD_SHORT_D16", 2 | kD16}, {"LOAD_SHORT_D16_HI", 2 | kD16Hi},
  };
  for (const Row& row : kRows)
    for (const char* form : {"", "_VE", "_SADDR", "_SVS", "_ST"})
      r.add(fmt::format("SCRATCH_{}{}", row.name, form), {scratch_op, OperandForm::ScratchMemory, 0, row.aux});
}

}  // namespace cdna4::emu
