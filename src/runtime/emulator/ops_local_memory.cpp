// DS: ds_read/ds_write b32..b128, the byte and short forms (u8/i8/u16/i16 and
// their d16 halves, b8/b16 and d16_hi), the two-address read2/write2 forms and
// gfx950's transposing reads ds_read_b64_tr_b16 / _b8.
// Reads sample LDS at issue and land in registers on completion; writes land
// in LDS on completion. Both are counted by lgkmcnt and complete in order.
#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/lds_access.hpp"
#include "runtime/emulator/memory_timing.hpp"
#include "runtime/emulator/ops_common.hpp"
#include "runtime/emulator/sub_dword.hpp"

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

// The active lanes' addresses (address + offset[a] for each of the kAddresses),
// each checked inside LDS, traced and tracked for races, then visited in lane
// order. kInside: lanes_untraced_inside_lds() holds, so only the tracking is left.
template <int kAddresses, bool kInside = false, class F>
void each_lane_address(Wave& w, const Inst& in, uint64_t exec, const uint32_t* address, const uint32_t* offset,
                       uint32_t bytes, bool write, F&& visit) {
  TraceRecorder* trace = kInside ? nullptr : w.wg->tracer.get();
  LdsLanes tracked(w, in, AsyncClass::Lds, write);
  for (int l = 0; l < kLanes; ++l) {
    if (!((exec >> l) & 1)) continue;
    for (int a = 0; a < kAddresses; ++a) {
      const uint64_t at = uint64_t(address[l]) + offset[a];
      if constexpr (!kInside) check_lds_range(w, in, at, bytes);
      visit(l, a, at);
      if (trace) trace->add(at, bytes, l);
      tracked.add(uint32_t(at), bytes);
    }
  }
  tracked.track();
}

// Each lane's 16 bytes at base + address[lane] into out[dword][lane], four lanes a 4 x 4 transpose.
void rows_of_four_dwords(const uint8_t* base, const uint32_t* address, uint32_t* out) {
#if defined(__SSE2__)
  for (int l = 0; l < kLanes; l += 4) {
    const __m128i r0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + address[l]));
    const __m128i r1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + address[l + 1]));
    const __m128i r2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + address[l + 2]));
    const __m128i r3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + address[l + 3]));
    const __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3);  // d0 d0 d1 d1
    const __m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);  // d2 d2 d3 d3
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + l), _mm_unpacklo_epi64(t0, t1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + kLanes + l), _mm_unpackhi_epi64(t0, t1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * kLanes + l), _mm_unpacklo_epi64(t2, t3));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 3 * kLanes + l), _mm_unpackhi_epi64(t2, t3));
  }
#else
  for (int l = 0; l < kLanes; ++l) {
    uint32_t lane[4];
    std::memcpy(lane, base + address[l], sizeof(lane));
    for (int d = 0; d < 4; ++d) out[d * kLanes + l] = lane[d];
  }
#endif
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
  const uint32_t offset[2] = {address_offset(in, shape, 0), address_offset(in, shape, kAddresses - 1)};
  const bool inside = lanes_untraced_inside_lds(w, address, exec, std::min(offset[0], offset[1]),
                                                std::max(offset[0], offset[1]), 4 * kDwords, 4);
  if (!inside)
    each_lane_address<kAddresses>(w, in, exec, address, offset, 4 * kDwords, false, [](int, int, uint64_t) {});
  else if (w.wg->track_races && kAddresses == 1)
    track_lanes(w, in, address, exec, offset[0], 4 * kDwords, false);
  else if (w.wg->track_races)
    each_lane_address<kAddresses, true>(w, in, exec, address, offset, 4 * kDwords, false, [](int, int, uint64_t) {});
  // Every lane checked: the copy, [dword][lane].
  uint32_t* values = register_values(w, op);
  if constexpr (kDwords == 4 && kAddresses == 1) {
    if (exec == ~uint64_t(0)) {
      rows_of_four_dwords(lds + offset[0], address, values);
      submit(w, in, op);
      return;
    }
  }
  for (int l = 0; l < kLanes; ++l) {
    if (!((exec >> l) & 1)) continue;
    for (int a = 0; a < kAddresses; ++a) {
      uint32_t lane[kDwords];
      std::memcpy(lane, lds + uint64_t(address[l]) + offset[a], sizeof(lane));
      for (int d = 0; d < kDwords; ++d) values[(a * kDwords + d) * kLanes + l] = lane[d];
    }
  }
  submit(w, in, op);
}

// ds_read_b64_tr_b{16,8}: each 16-lane block (lanes 16b..16b+15) transposes
// among itself. Lane s of the block reads 8 bytes at its address, n = 64 / bits
// elements; take those as row s / G, columns n * (s % G) .. of an n x 16 tile T
// (G = 16 / n lanes per row). Lane i of the block receives column i of T:
//   result[16b + i].element[j] = LDS[addr[16b + G*j + i/n] + bytes * (i % n)],
// element j in bits [bits*j, bits*(j+1)) of the lane's 64 bits. Sources: the
// CDNA4 ISA's description of DS_READ_B64_TR_B16 ("each lane holds 4 consecutive
// M or N values"; EXEC must be all ones), Triton's chooseDsReadB64TrLayout
// (LinearLayoutConversions.cpp: 16-lane groups, MxK = 16x4 base unit for 16-bit,
// two interleaved 8x8 byte transposes for 8-bit) and the lane addresses
// HipKittens' shared_to_register loads give it; all agree.
template <int kBits> void ds_read_transposed(Wave& w, const Inst& in) {
  constexpr int elements = 64 / kBits, lanes_per_row = 16 / elements;
  LaneValues address;
  fetch(w, in.src[0], address);
  if (w.exec() != ~uint64_t(0))
    w.wg->fail(w, in, fmt::format("a transposing LDS read needs EXEC all ones (it is 0x{:016x})", w.exec()));
  const uint8_t* lds = w.wg->lds.data();
  PendingOp& op = begin_op(w, AsyncClass::Lds);
  op.target = PendingOp::Target::Vgpr;
  op.reg = in.dst[0].index;
  op.dwords = 2;
  op.lanes = ~uint64_t(0);
  const uint32_t offset = uint32_t(in.offset & 0xffff);
  const bool inside = lanes_untraced_inside_lds(w, address, ~uint64_t(0), offset, offset, 8, 8);
  if (inside && w.wg->track_races) {
    track_lanes(w, in, address, ~uint64_t(0), offset, 8, false);
  } else if (!inside) {
    TraceRecorder* trace = w.wg->tracer.get();
    LdsLanes tracked(w, in, AsyncClass::Lds, false);
    for (int l = 0; l < kLanes; ++l) {
      const uint64_t at = uint64_t(address[l]) + offset;
      check_lds_range(w, in, at, 8);
      if (at % 8 != 0) w.wg->fail(w, in, fmt::format("transposing LDS read address 0x{:x} is not 8-byte aligned", at));
      if (trace) trace->add(at, 8, l);
      tracked.add(uint32_t(at), 8);
    }
    tracked.track();
  }
  uint64_t read[kLanes];  // each lane's 8 bytes, elements little-endian
  for (int l = 0; l < kLanes; ++l) std::memcpy(&read[l], lds + offset + address[l], 8);
  uint32_t* values = register_values(w, op);
#if defined(__SSE2__)
  if constexpr (kBits == 16) {
    // Lanes 16b + 4p + e take element e of lanes 16b + p, + 4 + p, + 8 + p, + 12 + p:
    // a 4 x 4 transpose of 16-bit elements. The low dwords of lanes 16b + 4p .. + 3
    // interleave the elements of lanes 16b + p and 16b + 4 + p, the high ones those
    // of 16b + 8 + p and 16b + 12 + p. (Without SSE2, the general loop below.)
    for (int block = 0; block < kLanes; block += 16)
      for (int p = 0; p < 4; ++p) {
        auto row = [&](int j) { return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(read + block + 4 * j + p)); };
        _mm_storeu_si128(reinterpret_cast<__m128i*>(values + block + 4 * p), _mm_unpacklo_epi16(row(0), row(1)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(values + kLanes + block + 4 * p),
                         _mm_unpacklo_epi16(row(2), row(3)));
      }
    submit(w, in, op);
    return;
  }
#endif
  constexpr uint64_t mask = (uint64_t(1) << kBits) - 1;
  for (int l = 0; l < kLanes; ++l) {
    const int block = l / 16 * 16, i = l % 16;
    uint64_t value = 0;
    for (int j = 0; j < elements; ++j)
      value |= ((read[block + lanes_per_row * j + i / elements] >> (kBits * (i % elements))) & mask) << (kBits * j);
    values[l] = uint32_t(value);
    values[kLanes + l] = uint32_t(value >> 32);
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
  const uint32_t offset[2] = {address_offset(in, shape, 0), address_offset(in, shape, kAddresses - 1)};
  const bool inside = lanes_untraced_inside_lds(w, address, exec, std::min(offset[0], offset[1]),
                                                std::max(offset[0], offset[1]), 4 * kDwords, 4);
  if (inside && !w.wg->track_races) {
    // Instant completion would land the values at submit, in this order: land them now.
    uint8_t* lds = w.wg->lds.data();
    for (int l = 0; l < kLanes; ++l) {
      if (!((exec >> l) & 1)) continue;
      for (int a = 0; a < kAddresses; ++a)
        for (int d = 0; d < kDwords; ++d)
          std::memcpy(lds + uint64_t(address[l]) + offset[a] + 4 * d, &data[a * kDwords + d][l], 4);
    }
    return;
  }
  PendingOp& op = begin_op(w, AsyncClass::Lds);
  op.target = PendingOp::Target::Lds;
  const size_t values = size_t(std::popcount(exec)) * kAddresses * kDwords;
  op.lds_address.resize(values);
  op.values.resize(values);
  uint32_t* lds_address = op.lds_address.data();
  uint32_t* value = op.values.data();
  auto keep = [&](int l, int a, uint64_t at) {
    for (int d = 0; d < kDwords; ++d) {
      *lds_address++ = uint32_t(at + 4 * d);
      *value++ = data[a * kDwords + d][l];
    }
  };
  if (inside && kAddresses == 1) {  // the values and addresses in lane order, then the lanes' spans
    if (exec == ~uint64_t(0)) {
      for (int l = 0; l < kLanes; ++l)
        for (int d = 0; d < kDwords; ++d) {
          lds_address[l * kDwords + d] = address[l] + offset[0] + 4 * d;
          value[l * kDwords + d] = data[d][l];
        }
    } else {
      for (uint64_t left = exec; left != 0; left &= left - 1)
        keep(std::countr_zero(left), 0, address[std::countr_zero(left)] + offset[0]);
    }
    track_lanes(w, in, address, exec, offset[0], 4 * kDwords, true);
  } else if (inside)
    each_lane_address<kAddresses, true>(w, in, exec, address, offset, 4 * kDwords, true, keep);
  else
    each_lane_address<kAddresses>(w, in, exec, address, offset, 4 * kDwords, true, keep);
  submit(w, in, op);
}

// The active lanes of a byte or short DS access: each lane's address + offset,
// naturally aligned and inside LDS, traced and tracked for races (per dword, so
// two waves touching different bytes of one dword unsynchronised are reported too).
template <class F>
void each_sub_dword_lane(Wave& w, const Inst& in, uint32_t bytes, bool write, uint64_t exec, F&& visit) {
  LaneValues address;
  fetch(w, in.src[0], address);
  TraceRecorder* trace = w.wg->tracer.get();
  LdsLanes tracked(w, in, AsyncClass::Lds, write);
  for (int l = 0; l < kLanes; ++l) {
    if (!((exec >> l) & 1)) continue;
    uint64_t at = uint64_t(address[l]) + (in.offset & 0xffff);
    check_lds_sub_dword_range(w, in, at, bytes);
    visit(l, uint32_t(at));
    if (trace) trace->add(at, bytes, l);
    tracked.add(uint32_t(at), bytes);
  }
  tracked.track();
}

// ds_read_{u8,i8,u16,i16}{,_d16,_d16_hi}: a byte or short extended into the
// lane's register or into one half of it (sub_dword.hpp).
template <uint32_t kBytes, bool kSign, bool kD16, bool kHigh> void ds_read_sub(Wave& w, const Inst& in) {
  constexpr sub_dword::LoadForm form{kBytes, kSign, kD16, kHigh};
  const uint64_t exec = w.exec();
  const uint8_t* lds = w.wg->lds.data();
  const uint32_t* old = w.v(in.dst[0].index);
  PendingOp& op = begin_op(w, AsyncClass::Lds);
  op.target = PendingOp::Target::Vgpr;
  op.reg = in.dst[0].index;
  op.dwords = 1;
  op.lanes = exec;
  op.values.assign(kLanes, 0);
  each_sub_dword_lane(w, in, kBytes, false, exec, [&](int l, uint32_t at) {
    uint32_t raw = 0;
    std::memcpy(&raw, lds + at, kBytes);
    op.values[l] = sub_dword::loaded(form, raw, old[l]);
  });
  submit(w, in, op);
}

// ds_write_b8 / b16 (_d16_hi: the data's high half).
template <uint32_t kBytes, bool kHigh> void ds_write_sub(Wave& w, const Inst& in) {
  LaneValues data;
  fetch(w, in.src[1], data);
  const uint64_t exec = w.exec();
  PendingOp& op = begin_op(w, AsyncClass::Lds);
  op.target = PendingOp::Target::Lds;
  op.lds_width = kBytes;
  each_sub_dword_lane(w, in, kBytes, true, exec, [&](int l, uint32_t at) {
    op.lds_address.push_back(at);
    op.values.push_back(sub_dword::stored(data[l], kHigh));
  });
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
  add("DS_READ_B64_TR_B16", ds_read_transposed<16>);
  add("DS_READ_B64_TR_B8", ds_read_transposed<8>);
  add("DS_WRITE_B32", ds_write<1, 1, 0>);
  add("DS_WRITE_B64", ds_write<2, 1, 0>);
  add("DS_WRITE_B96", ds_write<3, 1, 0>);
  add("DS_WRITE_B128", ds_write<4, 1, 0>);
  add("DS_WRITE2_B32", ds_write<1, 2, 4>);
  add("DS_WRITE2_B64", ds_write<2, 2, 8>);
  add("DS_WRITE2ST64_B32", ds_write<1, 2, 256>);
  add("DS_WRITE2ST64_B64", ds_write<2, 2, 512>);
  add("DS_READ_U8", ds_read_sub<1, false, false, false>);
  add("DS_READ_I8", ds_read_sub<1, true, false, false>);
  add("DS_READ_U16", ds_read_sub<2, false, false, false>);
  add("DS_READ_I16", ds_read_sub<2, true, false, false>);
  add("DS_READ_U8_D16", ds_read_sub<1, false, true, false>);
  add("DS_READ_U8_D16_HI", ds_read_sub<1, false, true, true>);
  add("DS_READ_I8_D16", ds_read_sub<1, true, true, false>);
  add("DS_READ_I8_D16_HI", ds_read_sub<1, true, true, true>);
  add("DS_READ_U16_D16", ds_read_sub<2, false, true, false>);
  add("DS_READ_U16_D16_HI", ds_read_sub<2, false, true, true>);
  add("DS_WRITE_B8", ds_write_sub<1, false>);
  add("DS_WRITE_B16", ds_write_sub<2, false>);
  add("DS_WRITE_B8_D16_HI", ds_write_sub<1, true>);
  add("DS_WRITE_B16_D16_HI", ds_write_sub<2, true>);
}

}  // namespace cdna4::emu
