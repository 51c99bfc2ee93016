#include "runtime/emulator/workgroup.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cdna4/error.hpp"
#include "runtime/emulator/access_summary.hpp"
#include "runtime/emulator/memory_timing.hpp"
#include "runtime/emulator/timed_issue.hpp"

namespace cdna4::emu {
namespace {

void unsupported(Wave& w, const Inst& in) { w.wg->fail(w, in, w.wg->program->errors[in.id]); }

uint64_t mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// User SGPRs in descriptor order, then workgroup ids (gfx9 entry ABI).
void init_scalar_state(Wave& w, const WorkgroupSetup& s, const uint32_t id[3]) {
  const KernelInfo& k = *s.kernel;
  uint32_t next = 0;
  auto put64 = [&](uint64_t v) {
    w.sgpr[next++] = uint32_t(v);
    w.sgpr[next++] = uint32_t(v >> 32);
  };
  uint16_t props = k.kernel_code_properties;
  if (props & 0x1) next += 4;                        // private segment buffer (refused with a private segment)
  if (props & 0x2) put64(s.dispatch_packet_address);  // dispatch ptr
  if (props & 0x4) put64(0);                          // queue ptr
  if (props & 0x8) put64(s.kernarg_address);          // kernarg segment ptr
  if (props & 0x10) put64(0);                         // dispatch id
  if (props & 0x20) put64(0);                         // flat scratch init
  if (props & 0x40) w.sgpr[next++] = w.wg->private_lane_bytes;  // private segment size
  // Remaining user SGPRs hold preloaded kernel arguments.
  const auto& kernarg = s.dispatch->kernarg;
  for (uint32_t i = 0; next < k.user_sgpr_count(); ++i, ++next) {
    uint32_t v = 0;
    if (4 * i + 4 <= kernarg.size()) std::memcpy(&v, kernarg.data() + 4 * i, 4);
    w.sgpr[next] = v;
  }
  if (k.workgroup_id_x()) w.sgpr[next++] = id[0];
  if (k.workgroup_id_y()) w.sgpr[next++] = id[1];
  if (k.workgroup_id_z()) w.sgpr[next++] = id[2];
}

void init_vector_state(Wave& w, const WorkgroupSetup& s, uint32_t vgprs) {
  const uint32_t* block = s.dispatch->block;
  uint32_t threads = block[0] * block[1] * block[2];
  std::fill(w.vgpr_storage.begin(), w.vgpr_storage.begin() + size_t(vgprs) * kLanes, 0u);
  uint64_t exec = 0;
  uint32_t* v0 = w.v(0);
  bool packed = s.kernel->workitem_id_dims() > 0;
  for (int l = 0; l < kLanes; ++l) {
    uint32_t flat = w.id * kLanes + l;
    if (flat >= threads) continue;
    exec |= 1ull << l;
    uint32_t x = flat % block[0], y = (flat / block[0]) % block[1], z = flat / (block[0] * block[1]);
    v0[l] = packed ? (x | (y << 10) | (z << 20)) : x;
  }
  w.set_s64(sreg::kExecLo, exec);
}

Wave* pick_wave(Workgroup& wg) {
  // Wake waves whose waits have elapsed; release a barrier all live waves reached.
  for (;;) {
    uint32_t at_barrier = 0, runnable = 0, weight = 0;
    uint64_t next_wake = ~0ull;
    for (auto& w : wg.waves) {
      if (w.status == WaveStatus::Waiting) {
        if (w.ready_at <= wg.now) w.status = WaveStatus::Ready;
        else next_wake = std::min(next_wake, w.ready_at);
      }
      if (w.status == WaveStatus::AtBarrier) ++at_barrier;
      if (w.status == WaveStatus::Ready) {
        ++runnable;
        weight += 1 + 3 * w.priority;
      }
    }
    if (runnable > 0 && wg.timed) {
      if (Wave* w = next_in_clock_order(wg, next_wake)) return w;
      continue;  // a waiting wave woke first
    }
    if (runnable > 0) {
      uint32_t pick = wg.random_below(weight);
      for (auto& w : wg.waves) {
        if (w.status != WaveStatus::Ready) continue;
        uint32_t wt = 1 + 3 * w.priority;
        if (pick < wt) return &w;
        pick -= wt;
      }
    }
    if (wg.live_waves == 0) return nullptr;
    if (at_barrier == wg.live_waves) {
      for (auto& w : wg.waves)
        if (w.status == WaveStatus::AtBarrier) {
          w.status = WaveStatus::Ready;
          ++w.barrier_epoch;
        }
      continue;
    }
    if (next_wake == ~0ull)
      throw Error(fmt::format("emulator: workgroup ({},{},{}) deadlocked: waves wait at s_barrier while others "
                              "wait on counters that can never drop",
                              wg.id[0], wg.id[1], wg.id[2]));
    wg.now = next_wake;
  }
}

// Before `in` issues; most instructions end no rule a live producer starts.
void check_hazards(Wave& w, const Inst& in) {
  if (w.wg->program->hazard_rows[in.id].ends & w.hazards.live_starts) check_hazards_of_producers(w, in);
}

// Appends the instruction `w` just issued (not a retried wait) with its memory summary.
void record_issued(TraceRecorder& t, const Wave& w, const Inst& in) {
  if (w.status != WaveStatus::Waiting) {
    uint32_t cost = 0;
    if (!t.lanes.empty())
      cost = in.async == AsyncClass::Lds
                 ? lds_bank_cycles(t.lanes, in.dst[0].kind == OperandKind::None, w.wg->program->lds_transpose[in.id])
                 : distinct_cache_lines(t.lanes);
    std::vector<TraceEntry>& stream = t.trace.waves[w.id];
    const size_t capacity = stream.capacity();
    stream.push_back({in.id, cost});
    if (stream.capacity() != capacity) t.charge(int64_t((stream.capacity() - capacity) * sizeof(TraceEntry)));
    const bool reads = in.dst[0].kind != OperandKind::None || w.wg->program->hazard[in.id].lds_dma;
    if (in.async == AsyncClass::Vector && reads && t.trace.read_lines.size() < t.footprint_lines) t.add_read_lines();
  }
  t.lanes.clear();
}

// Issues instructions of the ready waves until all have ended; one copy with
// the trace recording, one without, so an untraced run pays nothing for it.
template <bool kTraced> void run_waves(Workgroup& wg, const WorkgroupSetup& s) {
  const KernelInfo& k = *s.kernel;
  const Program& p = *s.program;
  const uint32_t end = static_cast<uint32_t>(p.insts.size());
  uint32_t unbilled = 0;  // instructions not yet charged to the run's budget
  // What the descriptor allocates (granules of 8 on gfx950, unified VGPR+AGPR
  // file); naming a register past it is refused as hardware would fault.
  const uint32_t vgpr_alloc = std::min<uint32_t>(kRegisterFile, (k.vgpr_granule_count + 1) * 8);
  const uint32_t sgpr_alloc = std::min<uint32_t>(sreg::kGeneralCount, (k.sgpr_granule_count + 1) * 8);
  while (Wave* w = pick_wave(wg)) {
    uint32_t burst = wg.timed ? 1 : wg.track_races ? 1 + wg.random_below(8) : 1024;
    for (uint32_t n = 0; n < burst && w->status == WaveStatus::Ready; ++n) {
      if (w->pc >= end) throw Error(fmt::format("emulator: wave {} ran past the end of .text", w->id));
      const Inst& in = p.insts[w->pc];
      if (in.vgpr_end > vgpr_alloc || in.sgpr_end > sgpr_alloc) [[unlikely]]
        wg.fail(*w, in, fmt::format("names {} but the kernel descriptor allocates {} {} registers",
                                    in.vgpr_end > vgpr_alloc ? fmt::format("v{}", in.vgpr_end - 1)
                                                             : fmt::format("s{}", in.sgpr_end - 1),
                                    in.vgpr_end > vgpr_alloc ? vgpr_alloc : sgpr_alloc,
                                    in.vgpr_end > vgpr_alloc ? "vector (VGPR + AGPR)" : "scalar"));
      if (wg.timed) [[unlikely]] begin_timed_issue(wg, *w);
      if (wg.track_races) {
        retire_completed(*w);
        check_register_races(*w, in);
      }
      check_hazards(*w, in);
      w->next_pc = w->pc + 1;
      in.exec(*w, in);
      if constexpr (kTraced) {
        record_issued(*wg.tracer, *w, in);
        if (wg.tracer->over_budget) [[unlikely]]
          throw LimitError(fmt::format("emulator: the timing model's traces passed the limit of {} bytes "
                                       "(max_trace_bytes, --max-trace-bytes) in workgroup ({},{},{}) wave {} at "
                                       "0x{:x} '{}'",
                                       s.options.trace->budget_bytes(), wg.id[0], wg.id[1], wg.id[2], w->id, in.pc,
                                       p.disasm[in.id]));
        if (wg.tracer->footprint_done()) return;
      }
      w->pc = w->next_pc;
      if (wg.timed) [[unlikely]] end_timed_issue(wg, *w, in);
      else ++wg.now;
      if (w->status != WaveStatus::Waiting) {
        ++wg.instructions;
        note_issued(w->hazards, p.hazard_rows[in.id], in.id);
      }
      if (++unbilled == RunLimits::kBatch) {
        unbilled = 0;
        if (auto hit = s.limits->charge(RunLimits::kBatch))
          throw LimitError(fmt::format("emulator: {} in workgroup ({},{},{}) wave {} at 0x{:x} '{}'", *hit, wg.id[0],
                                       wg.id[1], wg.id[2], w->id, in.pc, p.disasm[in.id]));
      }
    }
  }
  if (auto hit = s.limits->charge(unbilled))  // short workgroups count too
    throw LimitError(fmt::format("emulator: {} when workgroup ({},{},{}) ended", *hit, wg.id[0], wg.id[1], wg.id[2]));
}

}  // namespace

Handler unsupported_instruction_handler() { return unsupported; }

void Workgroup::report_race(const Wave& wave, const Inst& in, uint32_t other_inst, RaceReport r) {
  RaceReport* slot = races.occurrence(r.kind, r.rule, in.pc);
  if (!slot) return;
  r.pc = in.pc;
  r.instruction = program->disasm[in.id];
  std::copy(std::begin(id), std::end(id), r.workgroup);
  r.wave = wave.id;
  r.other_pc = program->insts[other_inst].pc;
  r.other_instruction = program->disasm[other_inst];
  r.what = describe(r);
  *slot = std::move(r);
}

void Workgroup::fail(const Wave& wave, const Inst& in, const std::string& what) const {
  throw Error(fmt::format("emulator: {} in workgroup ({},{},{}) wave {}: {}", program->describe(in), id[0], id[1],
                          id[2], wave.id, what));
}

void run_workgroup(Workgroup& wg, const WorkgroupSetup& s, const uint32_t id[3]) {
  const KernelInfo& k = *s.kernel;
  const Dispatch& d = *s.dispatch;
  wg.program = s.program;
  wg.kernel = s.kernel;
  wg.memory = s.memory;
  wg.options = s.options;
  wg.track_races = !s.options.instant_completion;
  wg.timed = s.options.timed;
  wg.next_in_turn = 0;
  std::fill(std::begin(wg.mfma_free_at), std::end(wg.mfma_free_at), 0);
  std::copy(id, id + 3, wg.id);
  wg.linear_id = id[0] + uint64_t(d.grid[0]) * (id[1] + uint64_t(d.grid[1]) * id[2]);
  wg.rng.seed(mix(s.options.seed ^ mix(wg.linear_id)));
  wg.now = 0;
  wg.races.reset(s.options.max_races);
  wg.instructions = wg.mfma_macs = 0;
  uint32_t lds_bytes = std::max(k.group_segment_fixed_size, k.md_group_segment_fixed_size) + d.dynamic_lds;
  wg.lds.assign(lds_bytes, 0);
  uint32_t threads = d.block[0] * d.block[1] * d.block[2];
  uint32_t num_waves = (threads + kLanes - 1) / kLanes;
  wg.private_lane_bytes = private_lane_bytes(k, d);
  wg.private_memory.assign(size_t(num_waves) * kLanes * wg.private_lane_bytes, 0);
  wg.waves.resize(num_waves);
  wg.async_states.clear();
  uint32_t vgprs = std::min<uint32_t>(kRegisterFile, std::max<uint32_t>({(k.vgpr_granule_count + 1) * 8, k.vgpr_count, 1}));
  for (uint32_t i = 0; i < num_waves; ++i) {
    Wave& w = wg.waves[i];
    w.wg = &wg;
    w.id = i;
    int32_t entry = s.program->index_at(k.entry_offset);
    if (entry < 0) throw Error(fmt::format("emulator: kernel {} entry 0x{:x} is not an instruction", k.name, k.entry_offset));
    w.pc = static_cast<uint32_t>(entry);
    w.scc = false;
    w.status = WaveStatus::Ready;
    w.ready_at = 0;
    w.clock = 0;
    w.priority = 0;
    w.barrier_epoch = 0;
    std::fill(std::begin(w.sgpr), std::end(w.sgpr), 0u);
    w.vgpr_storage.resize(size_t(kRegisterFile + scratch::kCount) * kLanes);
    w.async.reset();
    w.hazards.reset();
    init_scalar_state(w, s, id);
    init_vector_state(w, s, vgprs);
    wg.async_states.push_back(&w.async);
  }
  wg.live_waves = num_waves;
  wg.tracer.reset();
  if (s.options.trace && s.options.trace->wants(wg.linear_id)) {
    wg.tracer = std::make_unique<TraceRecorder>(s.options.trace);
    wg.tracer->trace.linear_id = wg.linear_id;
    wg.tracer->trace.waves.resize(num_waves);
    wg.tracer->charge(int64_t(trace_bytes(wg.tracer->trace)));
    const bool probe = s.options.trace->footprint_only(wg.linear_id);
    const uint32_t cap = s.options.trace->footprint_lines();
    wg.tracer->footprint_lines = probe || cap == 0 ? cap : ~0u;  // fully traced: every line it reads
    wg.tracer->stop_at_footprint = s.options.trace_only && probe;
  }
  if (wg.track_races) wg.lds_tracker.reset(lds_bytes, num_waves);

  if (wg.tracer)
    run_waves<true>(wg, s);
  else
    run_waves<false>(wg, s);
  if (wg.tracer) {
    s.options.trace->deliver(std::move(wg.tracer->trace));
    wg.tracer.reset();
  }
}

}  // namespace cdna4::emu
