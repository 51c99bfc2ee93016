// DS: ds_read/ds_write b32..b128 and the two-address read2/write2 forms.
// Reads sample LDS at issue and land in registers on completion; writes land
// in LDS on completion. Both are counted by lgkmcnt and complete in order.
#include <cstring>

#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/lds_access.hpp"
#include "runtime/emulator/memory_timing.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

// One address per lane, `kDwords` consecutive dwords at each of the given offsets.
struct DsShape {
  int dwords_per_address;
  int addresses;   // 1 or 2 (read2/write2)
  int stride;      // bytes per unit of offset0/offset1 for the 2-address forms
};

uint32_t address_offset(const Inst& in, const DsShape& s, int which) {
  if (s.addresses == 1) return static_cast<uint32_t>(in.offset & 0xffff);
  uint32_t unit = static_cast<uint32_t>((in.offset >> (8 * which)) & 0xff);
  return unit * s.stride;
}

template <int kDwords, int kAddresses, int kStride> void ds_read(Wave& w, const Inst& in) {
  constexpr DsShape shape{kDwords, kAddresses, kStride};
  LaneValues address;
  fetch(w, in.src[0], address);
  uint64_t exec = w.exec();
  const uint8_t* lds = w.wg->lds.data();
  PendingOp& op = begin_op(w, AsyncClass::Lds);
  op.target = PendingOp::Target::Vgpr;
  op.reg = in.dst[0].index;
  op.dwords = kDwords * kAddresses;
  op.lanes = exec;
  op.values.resize(size_t(op.dwords) * kLanes);
  TraceRecorder* trace = w.wg->tracer.get();
  bool track = true;
  for (int l = 0; l < kLanes; ++l) {
    if (!((exec >> l) & 1)) continue;
    for (int a = 0; a < kAddresses; ++a) {
      uint64_t at = uint64_t(address[l]) + address_offset(in, shape, a);
      check_lds_range(w, in, at, 4 * kDwords);
      for (int d = 0; d < kDwords; ++d) std::memcpy(&op.values[(a * kDwords + d) * kLanes + l], lds + at + 4 * d, 4);
      if (trace) trace->add(at, 4 * kDwords, l);
      if (track) track = track_lds(w, in, AsyncClass::Lds, uint32_t(at), 4 * kDwords, false);
    }
  }
  submit(w, in, op);
}

template <int kDwords, int kAddresses, int kStride> void ds_write(Wave& w, const Inst& in) {
  constexpr DsShape shape{kDwords, kAddresses, kStride};
  LaneValues address, data[8];
  fetch(w, in.src[0], address);
  for (int a = 0; a < kAddresses; ++a)
    for (int d = 0; d < kDwords; ++d) fetch(w, in.src[1 + a], data[a * kDwords + d], d);
  uint64_t exec = w.exec();
  PendingOp& op = begin_op(w, AsyncClass::Lds);
  op.target = PendingOp::Target::Lds;
  TraceRecorder* trace = w.wg->tracer.get();
  bool track = true;
  for (int l = 0; l < kLanes; ++l) {
    if (!((exec >> l) & 1)) continue;
    for (int a = 0; a < kAddresses; ++a) {
      uint64_t at = uint64_t(address[l]) + address_offset(in, shape, a);
      check_lds_range(w, in, at, 4 * kDwords);
      for (int d = 0; d < kDwords; ++d) {
        op.lds_address.push_back(uint32_t(at + 4 * d));
        op.values.push_back(data[a * kDwords + d][l]);
      }
      if (trace) trace->add(at, 4 * kDwords, l);
      if (track) track = track_lds(w, in, AsyncClass::Lds, uint32_t(at), 4 * kDwords, true);
    }
  }
  submit(w, in, op);
}

}  // namespace

void register_local_memory(HandlerRegistry& r) {
  auto add = [&](const char* name, Handler fn) { r.add(name, {fn, OperandForm::LocalMemory, 0, 0}); };
  add("DS_READ_B32", ds_read<1, 1, 0>);
  add("DS_READ_B64", ds_read<2, 1, 0>);
  add("DS_READ_B96", ds_read<3, 1, 0>);
  add("DS_READ_B128", ds_read<4, 1, 0>);
  add("DS_READ2_B32", ds_read<1, 2, 4>);
  add("DS_READ2_B64", ds_read<2, 2, 8>);
  add("DS_READ2ST64_B32", ds_read<1, 2, 256>);
  add("DS_READ2ST64_B64", ds_read<2, 2, 512>);
  add("DS_WRITE_B32", ds_write<1, 1, 0>);
  add("DS_WRITE_B64", ds_write<2, 1, 0>);
  add("DS_WRITE_B96", ds_write<3, 1, 0>);
  add("DS_WRITE_B128", ds_write<4, 1, 0>);
  add("DS_WRITE2_B32", ds_write<1, 2, 4>);
  add("DS_WRITE2_B64", ds_write<2, 2, 8>);
  add("DS_WRITE2ST64_B32", ds_write<1, 2, 256>);
  add("DS_WRITE2ST64_B64", ds_write<2, 2, 512>);
}

}  // namespace cdna4::emu
