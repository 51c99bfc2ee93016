// SMEM: s_load_dword* (flat scalar address) and s_buffer_load_dword* (V#).
// Results arrive out of order on the lgkm queue.
#include <fmt/format.h>

#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/memory_timing.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

int64_t smem_offset(const Wave& w, const Inst& in) {
  int64_t offset = in.offset & 0x1fffff;  // 21-bit signed immediate on gfx9
  if (offset & 0x100000) offset -= 0x200000;
  if (in.num_src > 1) offset += scalar_u32(w, in.src[1]);
  return offset;
}

template <int kDwords> void s_load(Wave& w, const Inst& in) {
  uint64_t address = (scalar_u64(w, in.src[0]) + smem_offset(w, in)) & ~3ull;
  if (!w.wg->memory->contains(address, 4 * kDwords))
    w.wg->fail(w, in, fmt::format("scalar load of {} bytes at 0x{:x} is outside every memory region", 4 * kDwords, address));
  PendingOp& op = begin_op(w, AsyncClass::Scalar);
  op.target = PendingOp::Target::Sgpr;
  op.reg = in.dst[0].index;
  op.dwords = kDwords;
  op.values.resize(kDwords);
  w.wg->memory->read(address, op.values.data(), 4 * kDwords);
  submit(w, in, op);
}

template <int kDwords> void s_buffer_load(Wave& w, const Inst& in) {
  uint32_t rsrc[4];
  for (int i = 0; i < 4; ++i) rsrc[i] = w.sgpr[in.src[0].index + i];
  uint64_t base = rsrc[0] | (uint64_t(rsrc[1] & 0xffff) << 32);
  uint32_t num_records = rsrc[2];
  int64_t offset = smem_offset(w, in) & ~3ll;
  PendingOp& op = begin_op(w, AsyncClass::Scalar);
  op.target = PendingOp::Target::Sgpr;
  op.reg = in.dst[0].index;
  op.dwords = kDwords;
  op.values.assign(kDwords, 0);
  for (int d = 0; d < kDwords; ++d) {
    int64_t at = offset + 4 * d;
    if (at < 0 || at + 4 > int64_t(num_records)) continue;  // out of range reads 0
    if (!w.wg->memory->contains(base + at, 4))
      w.wg->fail(w, in, fmt::format("scalar buffer load at 0x{:x} is outside every memory region", base + at));
    w.wg->memory->read(base + at, &op.values[d], 4);
  }
  submit(w, in, op);
}

template <int N> void add_family(HandlerRegistry& r, const char* load, const char* buffer_load) {
  for (const char* form : {"_IMM", "_SGPR", "_SGPR_IMM"}) {
    r.add(std::string(load) + form, {s_load<N>, OperandForm::ScalarMemory, 0, 0});
    r.add(std::string(buffer_load) + form, {s_buffer_load<N>, OperandForm::ScalarMemory, 0, 0});
  }
}

}  // namespace

void register_scalar_memory(HandlerRegistry& r) {
  add_family<1>(r, "S_LOAD_DWORD", "S_BUFFER_LOAD_DWORD");
  add_family<2>(r, "S_LOAD_DWORDX2", "S_BUFFER_LOAD_DWORDX2");
  add_family<4>(r, "S_LOAD_DWORDX4", "S_BUFFER_LOAD_DWORDX4");
  add_family<8>(r, "S_LOAD_DWORDX8", "S_BUFFER_LOAD_DWORDX8");
  add_family<16>(r, "S_LOAD_DWORDX16", "S_BUFFER_LOAD_DWORDX16");
}

}  // namespace cdna4::emu
