#include "runtime/emulator/memory_timing.hpp"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "common/latencies.hpp"
#include "runtime/emulator/race_location.hpp"

namespace cdna4::emu {
namespace {

bool completes_in_order(AsyncClass cls) { return cls != AsyncClass::Scalar; }

// Timed mode: the workgroup's clock counts clocks (timed_issue.hpp).
uint32_t timed_latency(AsyncClass cls) {
  switch (cls) {
    case AsyncClass::Vector: return gfx950::kL2HitLatencyClocks;
    case AsyncClass::Lds: return gfx950::kLdsLatencyClocks;
    case AsyncClass::Scalar: return gfx950::kScalarCacheLatencyClocks;
    case AsyncClass::None: break;
  }
  return 0;
}

void apply(Wave& wave, const PendingOp& op) {
  switch (op.target) {
    case PendingOp::Target::None: break;
    case PendingOp::Target::Vgpr:
      if (op.lanes == ~0ull) {  // the registers are consecutive, [dword][lane] as the values
        std::memcpy(wave.v(op.reg), op.values.data(), size_t(op.dwords) * kLanes * sizeof(uint32_t));
        break;
      }
      for (uint32_t d = 0; d < op.dwords; ++d) {
        uint32_t* dst = wave.v(op.reg + d);
        const uint32_t* src = op.values.data() + d * kLanes;
        for (int lane = 0; lane < kLanes; ++lane)
          if ((op.lanes >> lane) & 1) dst[lane] = src[lane];
      }
      break;
    case PendingOp::Target::Sgpr:
      for (uint32_t d = 0; d < op.dwords; ++d) wave.sgpr[op.reg + d] = op.values[d];
      break;
    case PendingOp::Target::Lds: {
      uint8_t* lds = wave.wg->lds.data();
      const uint32_t* values = op.values.data();
      const uint32_t* address = op.lds_address.data();
      const size_t count = op.values.size();
      if (op.lds_block) {
        std::memcpy(lds + address[0], values, count * sizeof(uint32_t));
      } else if (op.lds_width == 4) {
        for (size_t i = 0; i < count; ++i) std::memcpy(lds + address[i], values + i, 4);
      } else {
        for (size_t i = 0; i < count; ++i) std::memcpy(lds + address[i], values + i, op.lds_width);
      }
      break;
    }
  }
}

void update_earliest(AsyncState& s) {
  uint64_t earliest = ~0ull;
  for (int c = 1; c < kAsyncClasses; ++c) {
    OpQueue& q = s.queue[c];
    if (q.empty()) continue;
    if (completes_in_order(AsyncClass(c))) earliest = std::min(earliest, q[0].complete_at);
    else
      for (size_t i = 0; i < q.size(); ++i) earliest = std::min(earliest, q[i].complete_at);
  }
  s.earliest_completion = earliest;
}

// Drops the tags of the registers in `bits` whose loads are guaranteed now (as
// a check would on meeting them), so that a wave with no load pending skips the check.
void drop_guaranteed_tags(AsyncState& s, uint32_t* tags, uint64_t* bits, size_t words) {
  for (size_t w = 0; w < words; ++w)
    for (uint64_t left = bits[w]; left != 0; left &= left - 1) {
      const uint32_t r = uint32_t(w * 64 + std::countr_zero(left));
      if (!s.guaranteed(tag_class(tags[r]), tag_seq(tags[r]))) continue;
      tags[r] = 0;
      bits[w] &= ~(1ull << (r % 64));
      --s.tagged;
    }
}

// The registers whose bits are set in `bits`, into `set`.
void add_tagged(RegisterFootprint& set, bool vector, const uint64_t* bits, size_t words) {
  for (size_t w = 0; w < words; ++w)
    for (uint64_t left = bits[w]; left != 0; left &= left - 1) set.add(vector, uint32_t(w * 64 + std::countr_zero(left)));
}

void guarantee(Wave& wave, AsyncClass cls, uint32_t upto) {
  AsyncState& s = wave.async;
  int c = int(cls);
  if (upto <= s.guaranteed_upto[c]) return;
  s.guaranteed_upto[c] = upto;
  s.checkpoints[c].emplace_back(upto, wave.barrier_epoch);
  if (s.tagged == 0) {
    s.tagged_footprint = {};
    return;
  }
  drop_guaranteed_tags(s, s.vgpr_tag, s.vgpr_tagged, std::size(s.vgpr_tagged));
  drop_guaranteed_tags(s, s.sgpr_tag, s.sgpr_tagged, std::size(s.sgpr_tagged));
  RegisterFootprint left;
  add_tagged(left, true, s.vgpr_tagged, std::size(s.vgpr_tagged));
  add_tagged(left, false, s.sgpr_tagged, std::size(s.sgpr_tagged));
  s.tagged_footprint = left;
}

// Instant completion applies an operation at submit and forgets it, so one
// per-thread slot serves every operation.
PendingOp& scratch_op() {
  static thread_local PendingOp scratch;
  return scratch;
}

// Every field a handler may leave unset starts empty, so nothing of the slot's
// previous operation (a register target, its lanes) is applied again.
PendingOp& fresh(PendingOp& op, AsyncClass cls) {
  op.cls = cls;
  op.target = PendingOp::Target::None;
  op.reg = 0;
  op.dwords = 0;
  op.lds_width = 4;
  op.lanes = 0;
  op.values.clear();
  op.lds_address.clear();
  op.lds_block = false;
  return op;
}

}  // namespace

uint32_t AsyncState::guarantee_epoch(AsyncClass cls, uint32_t seq) const {
  const auto& cp = checkpoints[int(cls)];
  auto it = std::lower_bound(cp.begin(), cp.end(), seq, [](auto& p, uint32_t s) { return p.first < s; });
  return it == cp.end() ? kNever : it->second;
}

void AsyncState::reset() {
  for (int c = 0; c < kAsyncClasses; ++c) {
    queue[c].clear();
    issued[c] = guaranteed_upto[c] = 0;
    checkpoints[c].clear();
  }
  earliest_completion = ~0ull;
  std::fill(std::begin(vgpr_tag), std::end(vgpr_tag), 0);
  std::fill(std::begin(sgpr_tag), std::end(sgpr_tag), 0);
  std::fill(std::begin(vgpr_tag_inst), std::end(vgpr_tag_inst), 0);
  std::fill(std::begin(sgpr_tag_inst), std::end(sgpr_tag_inst), 0);
  std::fill(std::begin(vgpr_tagged), std::end(vgpr_tagged), 0);
  std::fill(std::begin(sgpr_tagged), std::end(sgpr_tagged), 0);
  tagged = 0;
  tagged_footprint = {};
}

uint32_t* register_values(Wave& wave, PendingOp& op) {
  if (!wave.wg->track_races && op.lanes == ~0ull) {
    op.target = PendingOp::Target::None;  // landed already
    return wave.v(op.reg);
  }
  op.values.resize(size_t(op.dwords) * kLanes);
  return op.values.data();
}

uint32_t* lds_block_values(Wave& wave, PendingOp& op, uint32_t lds_at, size_t dwords) {
  if (!wave.wg->track_races) {
    op.target = PendingOp::Target::None;  // landed already
    return reinterpret_cast<uint32_t*>(wave.wg->lds.data() + lds_at);
  }
  op.values.resize(dwords);
  op.lds_address.assign(1, lds_at);
  op.lds_block = true;
  return op.values.data();
}

PendingOp& begin_op(Wave& wave, AsyncClass cls) {
  return fresh(wave.wg->track_races ? wave.async.queue[int(cls)].push() : scratch_op(), cls);
}

void submit(Wave& wave, const Inst& in, PendingOp& op) {
  Workgroup& wg = *wave.wg;
  if (!wg.track_races) {
    apply(wave, op);
    return;
  }
  AsyncState& s = wave.async;
  int c = int(op.cls);
  op.seq = ++s.issued[c];
  uint64_t when = wg.now + 1 + (wg.timed ? timed_latency(op.cls)
                                            : wg.random_below(std::max<uint32_t>(1, wg.options.max_delay)));
  OpQueue& q = s.queue[c];
  if (completes_in_order(op.cls) && q.size() >= 2) when = std::max(when, q[q.size() - 2].complete_at);
  op.complete_at = when;
  s.earliest_completion = std::min(s.earliest_completion, when);
  uint32_t tag = make_tag(op.cls, op.seq);
  if (op.target == PendingOp::Target::Vgpr)
    for (uint32_t d = 0; d < op.dwords; ++d) {
      s.tagged += s.vgpr_tag[op.reg + d] == 0;
      s.vgpr_tag[op.reg + d] = tag;
      s.vgpr_tag_inst[op.reg + d] = in.id;
      s.vgpr_tagged[(op.reg + d) / 64] |= 1ull << ((op.reg + d) % 64);
      s.tagged_footprint.add(true, op.reg + d);
    }
  if (op.target == PendingOp::Target::Sgpr)
    for (uint32_t d = 0; d < op.dwords; ++d) {
      s.tagged += s.sgpr_tag[op.reg + d] == 0;
      s.sgpr_tag[op.reg + d] = tag;
      s.sgpr_tag_inst[op.reg + d] = in.id;
      s.sgpr_tagged[(op.reg + d) / 64] |= 1ull << ((op.reg + d) % 64);
      s.tagged_footprint.add(false, op.reg + d);
    }
}

void apply_completed(Wave& wave) {
  AsyncState& s = wave.async;
  uint64_t now = wave.wg->now;
  for (int c = 1; c < kAsyncClasses; ++c) {
    OpQueue& q = s.queue[c];
    if (completes_in_order(AsyncClass(c))) {
      while (!q.empty() && q[0].complete_at <= now) {
        apply(wave, q[0]);
        q.pop_front();
      }
    } else {
      for (size_t i = 0; i < q.size();) {
        if (q[i].complete_at <= now) {
          apply(wave, q[i]);
          q.erase(i);
        } else {
          ++i;
        }
      }
    }
  }
  update_earliest(s);
}

bool wait_for_counts(Wave& wave, uint32_t vmcnt, uint32_t lgkmcnt) {
  if (!wave.wg->track_races) return true;
  retire_completed(wave);
  AsyncState& s = wave.async;
  uint64_t ready = 0;
  OpQueue& vm = s.queue[int(AsyncClass::Vector)];
  if (vm.size() > vmcnt) ready = std::max(ready, vm[vm.size() - vmcnt - 1].complete_at);
  OpQueue& lds = s.queue[int(AsyncClass::Lds)];
  OpQueue& smem = s.queue[int(AsyncClass::Scalar)];
  size_t lgkm = lds.size() + smem.size();
  if (lgkm > lgkmcnt) {
    std::vector<uint64_t> times;
    times.reserve(lgkm);
    for (size_t i = 0; i < lds.size(); ++i) times.push_back(lds[i].complete_at);
    for (size_t i = 0; i < smem.size(); ++i) times.push_back(smem[i].complete_at);
    size_t k = lgkm - lgkmcnt - 1;
    std::nth_element(times.begin(), times.begin() + k, times.end());
    ready = std::max(ready, times[k]);
  }
  if (ready > 0) {
    wave.ready_at = ready;
    wave.status = WaveStatus::Waiting;
    return false;
  }
  // Same-queue operations complete in order: all but the newest `count` are done.
  // SMEM completes out of order, so only lgkmcnt(0) proves any of it.
  auto upto = [](uint32_t issued, uint32_t count) { return issued > count ? issued - count : 0; };
  guarantee(wave, AsyncClass::Vector, upto(s.issued[int(AsyncClass::Vector)], vmcnt));
  guarantee(wave, AsyncClass::Lds, upto(s.issued[int(AsyncClass::Lds)], lgkmcnt));
  if (lgkmcnt == 0) guarantee(wave, AsyncClass::Scalar, s.issued[int(AsyncClass::Scalar)]);
  return true;
}

namespace {

// The first register in [from, end) whose bit is set, or end.
uint32_t next_tagged(const uint64_t* bits, uint32_t from, uint32_t end) {
  while (from < end) {
    const uint64_t word = bits[from / 64] >> (from % 64);
    if (word != 0) return std::min(end, from + uint32_t(std::countr_zero(word)));
    from = (from / 64 + 1) * 64;
  }
  return end;
}

}  // namespace

void find_register_races(Wave& wave, const Inst& in) {
  AsyncState& s = wave.async;
  for (int a = 0; a < in.num_access; ++a) {
    const RegAccess& acc = in.access[a];
    uint32_t* tags = acc.vector ? s.vgpr_tag : s.sgpr_tag;
    uint64_t* tagged = acc.vector ? s.vgpr_tagged : s.sgpr_tagged;
    const uint32_t end = uint32_t(acc.first) + acc.count;
    for (uint32_t r = next_tagged(tagged, acc.first, end); r < end; r = next_tagged(tagged, r + 1, end)) {
      uint32_t tag = tags[r];
      AsyncClass cls = tag_class(tag);
      if (s.guaranteed(cls, tag_seq(tag))) {
        tags[r] = 0;
        tagged[r / 64] &= ~(1ull << (r % 64));
        --s.tagged;
        continue;
      }
      if (acc.write && cls == in.async) continue;  // same queue: the older load lands first
      uint32_t loader = (acc.vector ? s.vgpr_tag_inst : s.sgpr_tag_inst)[r];
      uint32_t count = 1;  // the registers of this access the same load targets
      while (r + count < uint32_t(acc.first) + acc.count && tags[r + count] == tag) ++count;
      RaceReport race;
      race.kind = acc.write ? RaceKind::RegisterOverwrite : RaceKind::RegisterRead;
      race.other_wave = wave.id;
      race.location = register_location(*wave.wg->program, acc.vector, r, count);
      race.missing = cls == AsyncClass::Vector ? MissingWait::Vmcnt : MissingWait::Lgkmcnt;
      wave.wg->report_race(wave, in, loader, std::move(race));
      return;
    }
  }
}

void drain(Wave& wave) {
  for (int c = 1; c < kAsyncClasses; ++c) wave.async.queue[c].clear();
  wave.async.earliest_completion = ~0ull;
}

}  // namespace cdna4::emu
