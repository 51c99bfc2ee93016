#include "runtime/model/cu_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <queue>
#include <utility>

#include "cdna4/error.hpp"
#include "runtime/emulator/access_summary.hpp"
#include "runtime/model/parameters.hpp"

namespace cdna4::model {
namespace {

static_assert(emu::kLdsBanks == param::kLdsBanks.value, "the trace and the model count the same LDS banks");
static_assert(emu::kCacheLineBytes == param::kCacheLineBytes.value, "the trace and the model use the same line");

constexpr uint64_t kIssuePeriod = as_int(param::kIssuePeriod);
constexpr uint64_t kValuLatency = as_int(param::kValuLatency);
constexpr uint32_t kRegisters = as_int(param::kVgprsPerLane);
constexpr uint64_t kMaxIdleClocks = uint64_t(1) << 26;  // far beyond any modeled latency

struct WaveSim {
  const std::vector<emu::TraceEntry>* stream = nullptr;
  size_t next = 0;
  uint32_t simd = 0, workgroup = 0, age = 0, priority = 0;
  uint64_t not_before = 0;
  bool at_barrier = false, done = false;
  std::deque<uint64_t> vm, lds;  // completion times, in order
  std::vector<uint64_t> smem;    // completion times, any order
  std::vector<uint64_t> vgpr_ready = std::vector<uint64_t>(kRegisters, 0);
  uint16_t chain_first = 0, chain_count = 0;  // the last MFMA's result, which srcC may chain on
  uint64_t finished_at = 0;
  uint64_t mfma_done = 0;  // when its last MFMA leaves the pipe
  uint32_t local = 0;      // wave index in its workgroup
  // The stall interval being recorded for the timeline.
  Slot stall = Slot::issued;
  uint64_t stall_begin = 0, stall_end = 0;
  uint32_t stall_pc = 0;
};

struct Cu {
  std::vector<uint64_t> mfma_free_at = std::vector<uint64_t>(as_int(param::kSimdsPerCu), 0);
  // A VALU instruction, or an MFMA reading its operands, keeps the SIMD's VALU
  // from issuing until valu_free_at; an MFMA holds packed-fp32 VALU longer.
  std::vector<uint64_t> valu_free_at = std::vector<uint64_t>(as_int(param::kSimdsPerCu), 0);
  std::vector<uint64_t> packed_held_until = std::vector<uint64_t>(as_int(param::kSimdsPerCu), 0);
  uint64_t lds_free_at = 0, vmem_free_at = 0;
  uint32_t global_latency = 0;
  // LDS-DMA data not yet written into LDS: (arrival, LDS clocks), earliest first.
  std::priority_queue<std::pair<uint64_t, uint64_t>, std::vector<std::pair<uint64_t, uint64_t>>, std::greater<>>
      dma_writes;
};

size_t outstanding(std::deque<uint64_t>& q, uint64_t now) {
  while (!q.empty() && q.front() <= now) q.pop_front();
  return q.size();
}

size_t outstanding(std::vector<uint64_t>& v, uint64_t now) {
  std::erase_if(v, [now](uint64_t t) { return t <= now; });
  return v.size();
}

uint64_t ready_of(const WaveSim& w, uint32_t first, uint32_t count) {
  uint64_t ready = 0;
  for (uint32_t r = first; r < first + count && r < kRegisters; ++r) ready = std::max(ready, w.vgpr_ready[r]);
  return ready;
}

// When the MFMA results `in` reads are written. An MFMA whose srcC is exactly
// the previous MFMA's result chains on it without waiting (accumulator forwarding).
uint64_t operands_ready(const WaveSim& w, const emu::Inst& in, const InstTiming& t) {
  uint64_t ready = 0;
  if (t.kind == Kind::mfma) {
    for (int s = 0; s < 2; ++s)
      if (in.src[s].kind == emu::OperandKind::Vgpr) ready = std::max(ready, ready_of(w, in.src[s].index, in.src[s].dwords));
    bool chained = t.acc_count && t.acc_first == w.chain_first && t.acc_count == w.chain_count;
    if (t.acc_count && !chained) ready = std::max(ready, ready_of(w, t.acc_first, t.acc_count));
    return ready;
  }
  for (int a = 0; a < in.num_access; ++a) {
    const emu::RegAccess& acc = in.access[a];
    if (acc.vector && !acc.write) ready = std::max(ready, ready_of(w, acc.first, acc.count));
  }
  return ready;
}

// Clocks the LDS takes to write `bytes` of LDS-DMA data, at the LDS's write rate.
uint64_t lds_clocks(uint32_t bytes) {
  const uint32_t per_clock = as_int(param::kLdsWriteBytesPerClock);
  return (bytes + per_clock - 1) / per_clock;
}

// A wave's private (scratch) data was written by that wave and stays in the
// write-back L2: an L2 hit, not the grid's L2-miss-weighted latency.
uint64_t vmem_completion(WaveSim& w, Cu& cu, uint64_t now, uint32_t lines, bool wave_private) {
  const uint64_t bytes = uint64_t(std::max<uint32_t>(lines, 1)) * as_int(param::kCacheLineBytes);
  const uint64_t busy = (bytes + as_int(param::kL1BytesPerClock) - 1) / as_int(param::kL1BytesPerClock);
  const uint64_t start = std::max(now, cu.vmem_free_at);
  cu.vmem_free_at = start + busy;
  const uint64_t latency =
      wave_private ? std::min<uint64_t>(cu.global_latency, as_int(param::kL2HitLatency)) : cu.global_latency;
  uint64_t done = start + busy + latency;
  if (!w.vm.empty()) done = std::max(done, w.vm.back());
  return done;
}

// LDS-DMA writes that arrived by `now` take the LDS pipe first, in arrival order.
void write_arrived_dma(Cu& cu, uint64_t now) {
  while (!cu.dma_writes.empty() && cu.dma_writes.top().first <= now) {
    cu.lds_free_at = std::max(cu.lds_free_at, cu.dma_writes.top().first) + cu.dma_writes.top().second;
    cu.dma_writes.pop();
  }
}

uint64_t lds_completion(WaveSim& w, Cu& cu, uint64_t now, uint32_t bank_cycles) {
  write_arrived_dma(cu, now);
  const uint64_t start = std::max(now, cu.lds_free_at);
  cu.lds_free_at = start + std::max<uint32_t>(bank_cycles, 1);
  uint64_t done = cu.lds_free_at + as_int(param::kLdsLatency);
  if (!w.lds.empty()) done = std::max(done, w.lds.back());
  return done;
}

class Simulation {
 public:
  Simulation(const emu::Program& program, const std::vector<InstTiming>& timing,
             const std::vector<emu::WorkgroupTrace>& workgroups, uint32_t global_latency, bool timeline)
      : program_(program), timing_(timing), timeline_(timeline) {
    cu_.global_latency = global_latency;
    uint32_t age = 0;
    for (uint32_t g = 0; g < workgroups.size(); ++g) {
      for (const auto& stream : workgroups[g].waves) {
        WaveSim w;
        w.local = uint32_t(&stream - workgroups[g].waves.data());
        w.stream = &stream;
        w.workgroup = g;
        w.age = age;
        w.simd = age % as_int(param::kSimdsPerCu);
        w.done = stream.empty();
        ++age;
        live_ += !w.done;
        waves_.push_back(std::move(w));
      }
    }
    workgroups_ = uint32_t(workgroups.size());
    by_simd_.resize(as_int(param::kSimdsPerCu));
    for (WaveSim& w : waves_) by_simd_[w.simd].push_back(&w);
  }

  void limit_timeline(uint64_t slices) { max_slices_ = slices; }

  CuResult run() {
    const uint32_t simds = as_int(param::kSimdsPerCu);
    uint64_t idle_since = 0;
    for (uint64_t now = 0; live_ > 0; ++now) {
      if (issue_slot(now % simds, now)) idle_since = now;
      if (barrier_changed_) release_barriers(now);
      if (now - idle_since > kMaxIdleClocks)
        throw Error(fmt::format("model: no wave issued for {} clocks (a wait that never completes)", kMaxIdleClocks));
    }
    for (WaveSim& w : waves_) {
      close_stall(w);
      result_.wave_end.push_back(w.finished_at);
      result_.cycles = std::max(result_.cycles, w.finished_at);
    }
    return result_;
  }

 private:
  void count(Slot s) { result_.wave_cycles[size_t(s)] += kIssuePeriod; }

  // Returns whether any wave issued.
  bool issue_slot(uint32_t simd, uint64_t now) {
    order_.clear();
    for (WaveSim* w : by_simd_[simd])
      if (!w->done) order_.push_back(w);
    std::sort(order_.begin(), order_.end(), [](const WaveSim* a, const WaveSim* b) {
      return a->priority != b->priority ? a->priority > b->priority : a->age < b->age;
    });
    uint32_t used = 0;  // categories issued in this slot
    bool any = false;
    for (WaveSim* w : order_) {
      Slot s = try_issue(*w, simd, now, used);
      count(s);
      if (timeline_) note_stall(*w, s, now);
      any |= s == Slot::issued;
    }
    return any;
  }

  Slot try_issue(WaveSim& w, uint32_t simd, uint64_t now, uint32_t& used) {
    if (w.at_barrier) return Slot::barrier;
    if (now < w.not_before) return Slot::other;
    const emu::TraceEntry& e = (*w.stream)[w.next];
    const emu::Inst& in = program_.insts[e.inst];
    const InstTiming& t = timing_[e.inst];
    if (t.kind == Kind::waitcnt) {
      if (outstanding(w.vm, now) > t.vmcnt) return Slot::vmcnt;
      if (outstanding(w.lds, now) + outstanding(w.smem, now) > t.lgkmcnt) return Slot::lgkmcnt;
    }
    if (t.category != Category::internal && operands_ready(w, in, t) > now) return Slot::mfma_dependency;
    if (t.kind == Kind::mfma && cu_.mfma_free_at[simd] > now) return Slot::mfma_busy;
    if (t.kind == Kind::valu && (cu_.valu_free_at[simd] > now || (t.packed_f32 && cu_.packed_held_until[simd] > now)))
      return Slot::issue;
    const uint32_t bit = 1u << uint32_t(t.category);
    if (t.category != Category::internal && (used & bit)) return Slot::issue;
    if (t.category != Category::internal) used |= bit;
    execute(w, e, in, t, simd, now);
    return Slot::issued;
  }

  void execute(WaveSim& w, const emu::TraceEntry& e, const emu::Inst& in, const InstTiming& t, uint32_t simd,
               uint64_t now) {
    ++result_.instructions;
    switch (t.kind) {
      case Kind::mfma: {
        const uint64_t busy = uint64_t(t.mfma_passes) * as_int(param::kClocksPerMfmaPass);
        cu_.mfma_free_at[simd] = now + busy;
        cu_.valu_free_at[simd] = std::max(cu_.valu_free_at[simd], now + t.valu_hold_slots * kIssuePeriod);
        cu_.packed_held_until[simd] = now + t.packed_hold_slots * kIssuePeriod;
        result_.mfma_busy_cycles += busy;
        result_.macs[size_t(t.mac_class)] += t.macs;
        w.mfma_done = now + busy;
        const uint64_t ready = now + busy + as_int(param::kMfmaResultExtra);
        for (uint32_t r = t.dst_first; r < uint32_t(t.dst_first) + t.dst_count && r < kRegisters; ++r)
          w.vgpr_ready[r] = ready;
        w.chain_first = t.dst_first;
        w.chain_count = t.dst_count;
        break;
      }
      case Kind::valu: {
        cu_.valu_free_at[simd] = now + t.valu_clocks;
        const uint64_t ready = now + std::max<uint64_t>(t.valu_clocks, kValuLatency);
        for (int a = 0; a < in.num_access; ++a)
          if (in.access[a].vector && in.access[a].write)
            for (uint32_t r = in.access[a].first; r < uint32_t(in.access[a].first) + in.access[a].count && r < kRegisters; ++r)
              w.vgpr_ready[r] = ready;
        break;
      }
      case Kind::smem: w.smem.push_back(now + as_int(param::kSmemLatency)); break;
      case Kind::vmem_load:
      case Kind::vmem_store:
        w.vm.push_back(vmem_completion(w, cu_, now, e.cost, t.wave_private));
        if (t.lds_dma_bytes) cu_.dma_writes.push({w.vm.back(), lds_clocks(t.lds_dma_bytes)});
        if (t.kind == Kind::vmem_store) result_.stored_bytes += uint64_t(e.cost) * as_int(param::kCacheLineBytes);
        break;
      case Kind::lds: w.lds.push_back(lds_completion(w, cu_, now, e.cost)); break;
      case Kind::nop: w.not_before = now + t.nop_slots * kIssuePeriod; break;
      case Kind::setprio: w.priority = t.priority; break;
      case Kind::barrier:
        w.at_barrier = true;
        barrier_changed_ = true;
        break;
      case Kind::endpgm: w.done = true; break;
      default: break;
    }
    if (timeline_) note_issued(w, in, t, simd, now);
    const bool last = ++w.next == w.stream->size();
    if (!last && t.kind == Kind::branch && (*w.stream)[w.next].inst != e.inst + 1)
      w.not_before = now + as_int(param::kTakenBranchPenalty);
    if (last) w.done = true;
    if (w.done) {
      w.finished_at = std::max(now + 1, w.mfma_done);
      --live_;
      barrier_changed_ = true;  // one wave fewer to wait for
    }
  }

  // Grows the timeline by doubling up to max_slices_, never past it.
  void add_slice(const WaveSim& w, ModelSliceKind kind, uint64_t begin, uint64_t end, uint32_t pc) {
    std::vector<ModelSlice>& t = result_.timeline;
    if (t.size() == t.capacity()) {
      if (t.size() >= max_slices_)
        throw LimitError(fmt::format("model: the timeline of one CU needs more than {} slices of {} bytes, all that "
                                     "the limit on the model's memory leaves (max_trace_bytes, --max-trace-bytes)",
                                     max_slices_, sizeof(ModelSlice)));
      t.reserve(size_t(std::min<uint64_t>(max_slices_, std::max<uint64_t>(1024, 2 * t.capacity()))));
    }
    t.push_back({kind, w.workgroup, w.local, w.simd, begin, end, pc});
  }

  // Called right after execute() queued the instruction's completion.
  void note_issued(const WaveSim& w, const emu::Inst& in, const InstTiming& t, uint32_t simd, uint64_t now) {
    switch (t.kind) {
      case Kind::mfma: add_slice(w, ModelSliceKind::mfma, now, cu_.mfma_free_at[simd], in.pc); break;
      case Kind::vmem_load: add_slice(w, ModelSliceKind::global_load, now, w.vm.back(), in.pc); break;
      case Kind::vmem_store: add_slice(w, ModelSliceKind::global_store, now, w.vm.back(), in.pc); break;
      case Kind::lds: add_slice(w, ModelSliceKind::lds, now, w.lds.back(), in.pc); break;
      default: break;
    }
  }

  static bool recorded(Slot s) {
    return s == Slot::vmcnt || s == Slot::lgkmcnt || s == Slot::barrier || s == Slot::mfma_dependency;
  }

  // Consecutive slots of one stall kind form one slice.
  void note_stall(WaveSim& w, Slot s, uint64_t now) {
    if (s == w.stall && w.stall_end == now) {
      w.stall_end = now + kIssuePeriod;
      return;
    }
    close_stall(w);
    if (!recorded(s)) return;
    w.stall = s;
    w.stall_begin = now;
    w.stall_end = now + kIssuePeriod;
    w.stall_pc = w.next < w.stream->size() ? program_.insts[(*w.stream)[w.next].inst].pc : 0;
  }

  void close_stall(WaveSim& w) {
    if (timeline_ && recorded(w.stall)) {
      const ModelSliceKind kind = w.stall == Slot::vmcnt     ? ModelSliceKind::wait_vmcnt
                                  : w.stall == Slot::lgkmcnt ? ModelSliceKind::wait_lgkmcnt
                                  : w.stall == Slot::barrier ? ModelSliceKind::barrier
                                                             : ModelSliceKind::mfma_dependency;
      add_slice(w, kind, w.stall_begin, w.stall_end, w.stall_pc);
    }
    w.stall = Slot::issued;
  }

  // A workgroup's barrier opens when every wave still running has reached it.
  void release_barriers(uint64_t now) {
    barrier_changed_ = false;
    for (uint32_t g = 0; g < workgroups_; ++g) {
      bool any = false, all = true;
      for (const WaveSim& w : waves_) {
        if (w.workgroup != g || w.done) continue;
        any |= w.at_barrier;
        all &= w.at_barrier;
      }
      if (!any || !all) continue;
      for (WaveSim& w : waves_)
        if (w.workgroup == g && w.at_barrier) {
          w.at_barrier = false;
          w.not_before = now + as_int(param::kBarrierLatency);
        }
    }
  }

  const emu::Program& program_;
  const std::vector<InstTiming>& timing_;
  std::vector<WaveSim> waves_;
  std::vector<std::vector<WaveSim*>> by_simd_;
  std::vector<WaveSim*> order_;
  size_t live_ = 0;
  bool barrier_changed_ = false;  // a wave reached a barrier or ended since the last check
  uint32_t workgroups_ = 0;
  bool timeline_ = false;
  uint64_t max_slices_ = UINT64_MAX;
  Cu cu_;
  CuResult result_;
};

}  // namespace

CuResult simulate_cu(const emu::Program& program, const std::vector<InstTiming>& timing,
                     const std::vector<emu::WorkgroupTrace>& workgroups, uint32_t global_latency,
                     bool timeline, uint64_t max_timeline_slices) {
  Simulation sim(program, timing, workgroups, global_latency, timeline);
  sim.limit_timeline(max_timeline_slices);
  return sim.run();
}

}  // namespace cdna4::model
