// MUBUF buffer_load/store (incl. the LDS-DMA "lds" forms) and global_load/store.
// All are counted by vmcnt and complete in order. Loads sample memory at issue
// and land on completion; stores write memory at issue (cross-wave ordering of
// global memory is not modelled) and only occupy the queue.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "runtime/emulator/buffer_resource.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/lds_access.hpp"
#include "runtime/emulator/memory_timing.hpp"
#include "runtime/emulator/ops_common.hpp"
#include "runtime/emulator/sub_dword.hpp"

namespace cdna4::emu {
namespace {

enum Addressing : uint32_t { kOffset = 0, kOffen = 1, kIdxen = 2, kBothen = 3 };

// aux bits: [1:0] addressing, [7:4] bytes per lane / 4 (0 = a sub-dword access: 2 bytes, 1 with [11]),
// [8] d16_hi (a store writes the high half, a load fills it), [9] LDS destination, [10] sign-extend
// sub-dword load, [11] one byte, [12] d16 (a load fills the low half)
constexpr uint32_t aux(Addressing a, uint32_t bytes, uint32_t extra = 0) {
  return a | ((bytes / 4) << 4) | extra;
}
constexpr uint32_t kD16Hi = 1 << 8;
constexpr uint32_t kToLds = 1 << 9;
constexpr uint32_t kSigned = 1 << 10;
constexpr uint32_t kByte = 1 << 11;
constexpr uint32_t kD16 = 1 << 12;

uint32_t access_bytes(const Inst& in) {
  uint32_t dwords = (in.aux >> 4) & 0xf;
  return dwords ? 4 * dwords : (in.aux & kByte) ? 1 : 2;
}

sub_dword::LoadForm load_form(const Inst& in) {
  return {access_bytes(in), (in.aux & kSigned) != 0, (in.aux & (kD16 | kD16Hi)) != 0, (in.aux & kD16Hi) != 0};
}

void fail_region(Wave& w, const Inst& in, uint64_t address, uint32_t bytes, int lane) {
  w.wg->fail(w, in, fmt::format("lane {}: access of {} bytes at 0x{:x} is outside every memory region", lane, bytes,
                                address));
}

// A queued vector load: into LDS (LDS-DMA) or into the destination VGPRs of the
// active lanes (values sized and zeroed by the caller, unless it fills them all).
PendingOp& begin_load(Wave& w, const Inst& in, uint32_t bytes, uint64_t exec) {
  PendingOp& op = begin_op(w, AsyncClass::Vector);
  if (in.aux & kToLds) {
    op.target = PendingOp::Target::Lds;
    return op;
  }
  const uint32_t dwords = (bytes + 3) / 4;
  op.target = PendingOp::Target::Vgpr;
  op.reg = in.dst[0].index;
  op.dwords = static_cast<uint8_t>(dwords);
  op.lanes = exec;
  return op;
}

// A register load's values before its lanes fill them: zero (out-of-range lanes load zero).
void zero_register_values(PendingOp& op) {
  if (op.target == PendingOp::Target::Vgpr) op.values.assign(size_t(op.dwords) * kLanes, 0);
}

// Per-lane effective address and range verdict of a MUBUF instruction.
struct BufferLane {
  uint64_t address;
  bool in_range;
};

// Every lane's kBytes at its address, lane after lane (to LDS: LDS order) or [dword][lane] (to registers).
template <uint32_t kBytes>
void read_lanes(const GlobalMemory& mem, const uint64_t* address, bool to_lds, uint32_t* out) {
  constexpr uint32_t kDwords = kBytes / 4;
  for (int l = 0; l < kLanes; ++l) {
    if (to_lds) {
      mem.read(address[l], out + l * kDwords, kBytes);
      continue;
    }
    uint32_t values[kDwords];
    mem.read(address[l], values, kBytes);
    for (uint32_t d = 0; d < kDwords; ++d) out[d * kLanes + l] = values[d];
  }
}

// A load inside a loop most often runs again on the next trip, by the same wave,
// at the same stride: ask now for the lines that trip will read (a prefetch never
// faults, so a wrong guess costs only the request). Remembered per worker thread,
// by (instruction, wave); another workgroup's entry is only a wrong guess.
void prefetch_next_trip(const Wave& w, const Inst& in, const uint64_t* address) {
  struct Last {
    uint64_t key = ~0ull, address = 0;
  };
  static thread_local std::vector<Last> last(4096);
  const uint64_t key = uint64_t(in.id) << 32 | w.id;
  Last& e = last[(size_t(in.id) * 64 + w.id) % last.size()];
  if (e.key == key) {
    const uint64_t stride = address[0] - e.address;
    if (stride != 0 && stride < (uint64_t(1) << 24)) {
      uint64_t line = ~0ull;
      for (int l = 0; l < kLanes; ++l)
        if ((address[l] + stride) / 64 != line) {
          line = (address[l] + stride) / 64;
          __builtin_prefetch(reinterpret_cast<const void*>(address[l] + stride));
        }
    }
  }
  e = {key, address[0]};
}

// kSubDword: a byte or short access (aux bytes 0); the dword forms take no sub-dword path.
template <bool kSubDword> void buffer_op(Wave& w, const Inst& in) {
  uint32_t rsrc_words[4];
  for (int i = 0; i < 4; ++i) rsrc_words[i] = w.sgpr[in.src[2].index + i];
  BufferResource rsrc = BufferResource::from_sgprs(rsrc_words);
  if (rsrc.add_tid) w.wg->fail(w, in, "add-tid buffer resources are not modelled");
  Addressing mode = Addressing(in.aux & 3);
  LaneValues v0, v1;
  if (mode != kOffset) fetch(w, in.src[1], v0, 0);
  if (mode == kBothen) fetch(w, in.src[1], v1, 1);
  uint32_t soffset = scalar_u32(w, in.src[3]);
  const uint32_t bytes = kSubDword ? access_bytes(in) : 4 * ((in.aux >> 4) & 0xf);
  bool store = in.dst[0].kind == OperandKind::None && !(in.aux & kToLds);
  bool indexed = mode == kIdxen || mode == kBothen;
  uint64_t exec = w.exec();
  const GlobalMemory& mem = *w.wg->memory;
  TraceRecorder* trace = w.wg->tracer.get();

  auto lane_info = [&](int l, uint32_t byte) {
    uint32_t index = indexed ? v0[l] : 0;
    uint32_t voff = mode == kOffen ? v0[l] : mode == kBothen ? v1[l] : 0;
    uint64_t offset = uint64_t(voff) + uint64_t(in.offset & 0xfff) + byte;
    const uint32_t size = kSubDword ? bytes : 4;  // a constant 4 for the dword forms
    return BufferLane{rsrc.base + soffset + rsrc.lane_offset(indexed, index, offset),
                      rsrc.in_range(indexed, index, offset + soffset, size)};
  };

  // The dword forms without swizzling address a lane's dwords consecutively: a lane
  // whose last dword is in range has all of them in range (the check is per dword).
  const bool contiguous = !kSubDword && !(indexed && rsrc.swizzle);
  auto whole_lane_in_range = [&](int l) {
    uint32_t index = indexed ? v0[l] : 0;
    uint32_t voff = mode == kOffen ? v0[l] : mode == kBothen ? v1[l] : 0;
    uint64_t offset = uint64_t(voff) + uint64_t(in.offset & 0xfff);
    return rsrc.in_range(indexed, index, offset + soffset, bytes);
  };
  const MemoryRegion* region = nullptr;

  if (store) {
    LaneValues data[4];
    for (uint32_t d = 0; d < (bytes + 3) / 4; ++d) fetch(w, in.src[0], data[d], d);
    for (int l = 0; l < kLanes; ++l) {
      if (!((exec >> l) & 1)) continue;
      // One check and one copy for the lane's dwords when they lie in one region
      // (else dword by dword, which names the dword outside every region).
      if (const uint64_t address = lane_info(l, 0).address;
          contiguous && whole_lane_in_range(l) && mem.contains(address, bytes, region)) {
        if (trace)
          for (uint32_t byte = 0; byte < bytes; byte += 4) trace->add(address + byte, 4, l);
        for (uint32_t byte = 0; byte < bytes; byte += 4) mem.write(address + byte, &data[byte / 4][l], 4);
        continue;
      }
      for (uint32_t byte = 0; byte < bytes; byte += 4) {
        BufferLane lane = lane_info(l, byte);
        if (!lane.in_range) continue;  // out-of-range stores are dropped
        const uint32_t size = kSubDword ? bytes : 4;  // a constant 4 for the dword forms
        if (!mem.contains(lane.address, size, region)) fail_region(w, in, lane.address, size, l);
        if (trace) trace->add(lane.address, size, l);
        uint32_t value = data[byte / 4][l];
        if constexpr (kSubDword) value = sub_dword::stored(value, in.aux & kD16Hi);
        mem.write(lane.address, &value, size);
      }
    }
    PendingOp& op = begin_op(w, AsyncClass::Vector);
    submit(w, in, op);
    return;
  }

  PendingOp& op = begin_load(w, in, bytes, exec);
  bool to_lds = in.aux & kToLds;
  // LDS-DMA: lane l writes LDS at M0 + instruction offset + l * (4, or 16 for x3/x4).
  uint32_t lds_stride = bytes == 4 ? 4 : 16;
  uint32_t lds_base = (w.sgpr[sreg::kM0] & 0x3ffff) + static_cast<uint32_t>(in.offset & 0xfff);
  LdsLanes tracked(w, in, AsyncClass::Vector, true);
  // The whole instruction at once when every lane is active, untraced, in range and
  // in one region (an LDS-DMA's block, lanes back to back, inside LDS): the same
  // values, with nothing observable done until every lane has passed.
  if constexpr (!kSubDword) {
    const bool lds_block_fits = !to_lds || (lds_stride == bytes && lds_base % 4 == 0 &&
                                            uint64_t(lds_base) + uint64_t(kLanes) * bytes <= w.wg->lds.size());
    if (contiguous && exec == ~0ull && !trace && lds_block_fits) {
      // Every lane's address checked (and its line asked for) first, then copied:
      // the lanes' memory reads overlap. One region holding the lanes' whole span holds each lane.
      uint64_t address[kLanes], low = ~0ull, high = 0;
      bool whole = true;
      for (int l = 0; l < kLanes && whole; ++l) {
        address[l] = lane_info(l, 0).address;
        whole = whole_lane_in_range(l);
        low = std::min(low, address[l]);
        high = std::max(high, address[l]);
        __builtin_prefetch(reinterpret_cast<const void*>(address[l]));
      }
      if (whole && high - low < (uint64_t(1) << 40) && mem.contains(low, high - low + bytes, region)) {
        uint32_t* out =
            to_lds ? lds_block_values(w, op, lds_base, size_t(kLanes) * (bytes / 4)) : register_values(w, op);
        switch (bytes) {
          case 4: read_lanes<4>(mem, address, to_lds, out); break;
          case 8: read_lanes<8>(mem, address, to_lds, out); break;
          case 12: read_lanes<12>(mem, address, to_lds, out); break;
          default: read_lanes<16>(mem, address, to_lds, out); break;
        }
        if (to_lds) {
          tracked.add_lanes(lds_base, bytes, kLanes);  // lds_stride == bytes
          tracked.track();
        }
        prefetch_next_trip(w, in, address);
        submit(w, in, op);
        return;
      }
      // Else lane by lane, as below: the lane that is not names its dword.
    }
  }
  zero_register_values(op);
  const uint32_t* old = w.v(in.dst[0].index);
  if (to_lds) {
    op.lds_address.reserve(size_t(kLanes) * (bytes / 4));
    op.values.reserve(size_t(kLanes) * (bytes / 4));
  }
  for (int l = 0; l < kLanes; ++l) {
    if (!((exec >> l) & 1)) continue;
    // One check and one copy for the lane's dwords when they lie in one region
    // (else dword by dword, which names the dword outside every region).
    if (const uint64_t address = lane_info(l, 0).address;
        contiguous && whole_lane_in_range(l) && mem.contains(address, bytes, region)) {
      uint32_t values[4];
      mem.read(address, values, bytes);
      if (trace)
        for (uint32_t byte = 0; byte < bytes; byte += 4) trace->add(address + byte, 4, l);
      if (to_lds) {
        const uint32_t at = lds_base + l * lds_stride;
        for (uint32_t d = 0; d < bytes / 4; ++d) {
          check_lds_range(w, in, at + 4 * d, 4);  // per dword: an error names the first dword outside LDS
          op.lds_address.push_back(at + 4 * d);
          op.values.push_back(values[d]);
        }
        tracked.add(at, bytes);
      } else {
        for (uint32_t d = 0; d < bytes / 4; ++d) op.values[d * kLanes + l] = values[d];
      }
      continue;
    }
    for (uint32_t byte = 0; byte < bytes; byte += 4) {
      BufferLane lane = lane_info(l, byte);
      const uint32_t size = kSubDword ? bytes : 4;  // a constant 4 for the dword forms
      uint32_t value = 0;  // out-of-range loads return zero
      if (lane.in_range) {
        if (!mem.contains(lane.address, size, region)) fail_region(w, in, lane.address, size, l);
        mem.read(lane.address, &value, size);
        if (trace) trace->add(lane.address, size, l);
      }
      if constexpr (kSubDword) value = sub_dword::loaded(load_form(in), value, old[l]);  // out of range: 0 extended
      if (to_lds) {
        uint32_t at = lds_base + l * lds_stride + byte;
        check_lds_range(w, in, at, 4);
        op.lds_address.push_back(at);
        op.values.push_back(value);
      } else {
        op.values[(byte / 4) * kLanes + l] = value;
      }
    }
    if (to_lds) tracked.add(lds_base + l * lds_stride, bytes);
  }
  tracked.track();
  submit(w, in, op);
}

// global_*: address = vaddr (64-bit) + offset, or saddr + zero-extended vaddr (32-bit) + offset.
void global_op(Wave& w, const Inst& in) {
  bool saddr = in.src[2].kind == OperandKind::Sgpr;
  LaneValues lo, hi;
  fetch(w, in.src[0], lo, 0);
  if (!saddr) fetch(w, in.src[0], hi, 1);
  uint64_t base = saddr ? scalar_u64(w, in.src[2]) : 0;
  auto address_of = [&](int l) {
    uint64_t a = saddr ? base + lo[l] : (lo[l] | (uint64_t(hi[l]) << 32));
    return a + static_cast<uint64_t>(in.offset);
  };
  uint32_t bytes = access_bytes(in);
  bool store = in.src[1].kind == OperandKind::Vgpr;
  uint64_t exec = w.exec();
  const GlobalMemory& mem = *w.wg->memory;
  TraceRecorder* trace = w.wg->tracer.get();
  if (store) {
    LaneValues data[4];
    for (uint32_t d = 0; d < (bytes + 3) / 4; ++d) fetch(w, in.src[1], data[d], d);
    for (int l = 0; l < kLanes; ++l) {
      if (!((exec >> l) & 1)) continue;
      uint64_t a = address_of(l);
      if (!mem.contains(a, bytes)) fail_region(w, in, a, bytes, l);
      if (trace) trace->add(a, bytes, l);
      if (bytes < 4) {
        uint32_t value = sub_dword::stored(data[0][l], in.aux & kD16Hi);
        mem.write(a, &value, bytes);
      } else {
        for (uint32_t d = 0; d < bytes / 4; ++d) mem.write(a + 4 * d, &data[d][l], 4);
      }
    }
    PendingOp& op = begin_op(w, AsyncClass::Vector);
    submit(w, in, op);
    return;
  }
  PendingOp& op = begin_load(w, in, bytes, exec);
  bool to_lds = in.aux & kToLds;
  uint32_t dwords = (bytes + 3) / 4;
  uint32_t lds_stride = bytes == 4 ? 4 : 16;
  uint32_t lds_base = (w.sgpr[sreg::kM0] & 0x3ffff);
  LdsLanes tracked(w, in, AsyncClass::Vector, true);
  zero_register_values(op);
  const uint32_t* old = w.v(in.dst[0].index);
  for (int l = 0; l < kLanes; ++l) {
    if (!((exec >> l) & 1)) continue;
    uint64_t a = address_of(l);
    if (!mem.contains(a, bytes)) fail_region(w, in, a, bytes, l);
    if (trace) trace->add(a, bytes, l);
    if (to_lds) {
      for (uint32_t d = 0; d < dwords; ++d) {
        uint32_t value;
        mem.read(a + 4 * d, &value, 4);
        uint32_t at = lds_base + l * lds_stride + 4 * d;
        check_lds_range(w, in, at, 4);
        op.lds_address.push_back(at);
        op.values.push_back(value);
      }
      tracked.add(lds_base + l * lds_stride, bytes);
    } else if (bytes < 4) {
      uint32_t value = 0;
      mem.read(a, &value, bytes);
      op.values[l] = sub_dword::loaded(load_form(in), value, old[l]);
    } else {
      for (uint32_t d = 0; d < dwords; ++d) mem.read(a + 4 * d, &op.values[d * kLanes + l], 4);
    }
  }
  tracked.track();
  submit(w, in, op);
}

}  // namespace

void register_vector_memory(HandlerRegistry& r) {
  struct Width {
    const char* suffix;
    uint32_t bytes;
  };
  const Width widths[] = {{"DWORD", 4}, {"DWORDX2", 8}, {"DWORDX3", 12}, {"DWORDX4", 16}};
  // Byte and short forms: sub-dword aux (bytes 0), shared by buffer_* and global_*.
  struct SubDword {
    const char* name;
    uint32_t extra;
  };
  static constexpr SubDword kSubDword[] = {
      {"LOAD_UBYTE", kByte},           {"LOAD_SBYTE", kByte | kSigned},
      {"LOAD_USHORT", 0},              {"LOAD_SSHORT", kSigned},
      {"STORE_BYTE", kByte},           {"STORE_SHORT", 0},
      {"STORE_BYTE_D16_HI", kByte | kD16Hi}, {"STORE_SHORT_D16_HI", kD16Hi},
      {"LOAD_UBYTE_D16", kByte | kD16}, {"LOAD_UBYTE_D16_HI", kByte | kD16Hi},
      {"LOAD_SBYTE_D16", kByte | kSigned | kD16}, {"LOAD_SBYTE_D16_HI", kByte | kSigned | kD16Hi},
      {"LOAD_SHORT_D16", kD16},        {"LOAD_SHORT_D16_HI", kD16Hi},
  };
  const std::pair<const char*, Addressing> modes[] = {
      {"_OFFSET", kOffset}, {"_OFFEN", kOffen}, {"_IDXEN", kIdxen}, {"_BOTHEN", kBothen}};
  for (auto [mode_name, mode] : modes) {
    auto add = [&](std::string name, uint32_t a) {
      r.add(name + mode_name, {a & 0xf0 ? buffer_op<false> : buffer_op<true>, OperandForm::BufferMemory, 0, a});
    };
    for (auto [suffix, bytes] : widths) {
      add(std::string("BUFFER_LOAD_") + suffix, aux(mode, bytes));
      add(std::string("BUFFER_STORE_") + suffix, aux(mode, bytes));
    }
    add("BUFFER_LOAD_DWORD_LDS", aux(mode, 4, kToLds));
    add("BUFFER_LOAD_DWORDX3_LDS", aux(mode, 12, kToLds));
    add("BUFFER_LOAD_DWORDX4_LDS", aux(mode, 16, kToLds));
    for (const SubDword& f : kSubDword) add(std::string("BUFFER_") + f.name, aux(mode, 0, f.extra));
  }
  for (const char* saddr : {"", "_SADDR"}) {
    auto add = [&](std::string name, uint32_t a) {
      r.add(name + saddr, {global_op, OperandForm::GlobalMemory, 0, a});
    };
    for (auto [suffix, bytes] : widths) {
      add(std::string("GLOBAL_LOAD_") + suffix, aux(kOffset, bytes));
      add(std::string("GLOBAL_STORE_") + suffix, aux(kOffset, bytes));
    }
    for (const SubDword& f : kSubDword) add(std::string("GLOBAL_") + f.name, aux(kOffset, 0, f.extra));
    add("GLOBAL_LOAD_LDS_DWORD", aux(kOffset, 4, kToLds));
    add("GLOBAL_LOAD_LDS_DWORDX3", aux(kOffset, 12, kToLds));
    add("GLOBAL_LOAD_LDS_DWORDX4", aux(kOffset, 16, kToLds));
  }
}

}  // namespace cdna4::emu
