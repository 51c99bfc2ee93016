// Symbolic simulation of every wave of the workgroup over one K-tile count, in
// the happens-before model of wave_events.hpp. Every wave writes its own 1 KiB
// of every G2S part, and a wave's S2R may touch any byte of the parts its rows
// intersect.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "schedule_internal.hpp"
#include "wave_events.hpp"

namespace cdna4::detail {
namespace {

struct Wave {
  int id = 0;
  const std::vector<OpInstance>* stream = nullptr;
  std::vector<Event> events;                    // parallel to *stream
  std::vector<int> write_of_tile;               // [operand][part][k] -> stream index, or -1
  std::vector<std::vector<int>> writes_to_slot;  // [operand][part][slot] -> stream indices
};

class Simulation {
 public:
  Simulation(const Schedule& s, int k_tiles, std::vector<Finding>& findings, size_t max_findings)
      : s_(s), k_tiles_(k_tiles), findings_(findings), max_findings_(max_findings) {}

  void run() {
    for (int g = 0; g < s_.pingpong_groups; ++g) streams_[g] = expand(s_, k_tiles_, g);
    // Geometry the walks ask per instance, worked out once per op (and wave).
    kpacks_ = kpacks(s_);
    g2s_parts_[0] = g2s_parts(s_, Operand::a);
    g2s_parts_[1] = g2s_parts(s_, Operand::b);
    parts_ = std::max(g2s_parts_[0], g2s_parts_[1]);
    ds_reads_.assign(s_.ops.size(), 0);
    parts_read_.assign(s_.ops.size() * size_t(s_.waves), {});
    for (size_t i = 0; i < s_.ops.size(); ++i) {
      if (s_.ops[i].kind != OpKind::s2r) continue;
      ds_reads_[i] = ds_reads(s_, s_.ops[i]);
      for (int w = 0; w < s_.waves; ++w) parts_read_[i * size_t(s_.waves) + size_t(w)] = parts_read(s_, s_.ops[i], w);
    }
    waves_.resize(s_.waves);
    for (int w = 0; w < s_.waves; ++w) run_wave(w);
    for (int v = 0; v < s_.waves; ++v) check_reads(v);
  }

 private:
  // Dense indices of the per-wave tables.
  int tile_index(int operand, int part, int k) const { return (operand * parts_ + part) * k_tiles_ + k; }
  int slot_index(int operand, int part, int slot) const { return (operand * parts_ + part) * s_.lds_buffers + slot; }
  int unit_index(int operand, int kpack, int half, int k) const {
    return ((operand * kpacks_ + kpack) * 2 + half) * k_tiles_ + k;
  }

  const ScheduleOp& op_at(const Wave& w, int index) const { return s_.ops[(*w.stream)[index].op]; }

  std::string where(const Wave& w, int index) const {
    const OpInstance& inst = (*w.stream)[index];
    return fmt::format("{} in {}", describe(s_, inst.op), describe_iteration(s_, inst.iteration, k_tiles_));
  }

  void add(const std::string& rule, int op, std::string message) {
    if (findings_.size() >= max_findings_ || !reported_.insert({rule, op}).second) return;
    findings_.push_back(Finding{rule, op, fmt::format("with K={} tile{}: {}", k_tiles_, k_tiles_ == 1 ? "" : "s", message)});
  }

  std::string unit_name(Operand o, int kpack, int half) const {
    return fmt::format("{} kpack {} {} {}", to_string(o), kpack, o == Operand::a ? "m_half" : "n_half", half);
  }

  // (operand, kpack, half) units an S2R loads or an MFMA consumes.
  template <typename F>
  void for_units(const ScheduleOp& op, Operand o, F&& f) const {
    const std::optional<int>& half = o == Operand::a ? op.m_half : op.n_half;
    for (int c = 0; c < kpacks_; ++c) {
      if (op.kpack && *op.kpack != c) continue;
      for (int h = 0; h < 2; ++h)
        if (!half || *half == h) f(c, h);
    }
  }

  void run_wave(int id) {
    Wave& w = waves_[id];
    w.id = id;
    w.stream = &streams_[wave_coord(s_, id).group];
    w.events.resize(w.stream->size());
    WaveCounters counters(w.events);
    std::vector<int> latest_s2r(size_t(2 * kpacks_ * 2 * k_tiles_), -1);  // [operand][kpack][half][k]
    w.write_of_tile.assign(size_t(2 * parts_ * k_tiles_), -1);
    w.writes_to_slot.assign(size_t(2 * parts_ * s_.lds_buffers), {});
    int epoch = 0;
    for (int t = 0; t < static_cast<int>(w.stream->size()); ++t) {
      const OpInstance& inst = (*w.stream)[t];
      Event& ev = w.events[t];
      ev.stream_index = t;
      ev.epoch = epoch;
      counters.wait(inst.vmcnt, inst.lgkmcnt, t, epoch);
      if (inst.op < 0) { ++epoch; continue; }
      const ScheduleOp& op = s_.ops[inst.op];
      const int operand = static_cast<int>(op.operand);
      switch (op.kind) {
        case OpKind::barrier: ++epoch; break;
        case OpKind::g2s: {
          counters.issue_vm(t);
          if (op.part < 0 || op.part >= g2s_parts_[operand]) break;  // a static g2s-coverage finding
          int& written = w.write_of_tile[tile_index(operand, op.part, inst.k)];
          if (written >= 0)
            add("g2s-coverage", inst.op, fmt::format("{}: part {}[{}] of tile k={} is loaded twice", where(w, t), to_string(op.operand), op.part, inst.k));
          else
            written = t;
          w.writes_to_slot[slot_index(operand, op.part, inst.k % s_.lds_buffers)].push_back(t);
          break;
        }
        case OpKind::s2r: {
          counters.issue_lgkm(t, ds_reads_[size_t(inst.op)]);
          for_units(op, op.operand, [&](int c, int h) { latest_s2r[unit_index(operand, c, h, inst.k)] = t; });
          break;
        }
        case OpKind::mfma:
          for (Operand o : {Operand::a, Operand::b})
            for_units(op, o, [&](int c, int h) {
              const int loaded_by = latest_s2r[unit_index(static_cast<int>(o), c, h, inst.k)];
              if (loaded_by < 0) {
                add("mfma-operands", inst.op, fmt::format(
                    "{}, wave {}: needs {} of tile k={} in registers, but no S2R issued before it in this wave loaded it "
                    "(S2R missing, or ordered after the MFMA)", where(w, t), id, unit_name(o, c, h), inst.k));
                return;
              }
              if (w.events[loaded_by].done_index != kNever) return;
              const int newer = counters.lgkm_newer_than(loaded_by);
              add("mfma-lgkmcnt", inst.op, fmt::format(
                  "{}, wave {}: consumes the registers of {} (tile k={}) whose ds_reads are still in flight; "
                  "s_waitcnt lgkmcnt({}) or lower is needed before this MFMA", where(w, t), id,
                  describe(s_, (*w.stream)[loaded_by].op), inst.k, newer));
            });
          break;
        case OpKind::setprio:
        case OpKind::wait: break;
      }
    }
  }

  void check_reads(int v) {
    const Wave& reader = waves_[v];
    for (int t = 0; t < static_cast<int>(reader.stream->size()); ++t) {
      const OpInstance& inst = (*reader.stream)[t];
      if (inst.op < 0 || s_.ops[inst.op].kind != OpKind::s2r) continue;
      const ScheduleOp& op = s_.ops[inst.op];
      const Event& read = reader.events[t];
      const int slot = inst.k % s_.lds_buffers;
      for (int p : parts_read_[size_t(inst.op) * size_t(s_.waves) + size_t(v)])
        for (const Wave& writer : waves_) {
          check_raw(reader, t, writer, p, slot);
          check_war(reader, t, read, writer, p, slot);
        }
    }
  }

  std::string part_name(const ScheduleOp& op, int p, int slot) const {
    return fmt::format("LDS slot {} part {}[{}]", slot, to_string(op.operand), p);
  }

  void check_raw(const Wave& reader, int t, const Wave& writer, int p, int slot) {
    const OpInstance& inst = (*reader.stream)[t];
    const ScheduleOp& op = s_.ops[inst.op];
    const Event& read = reader.events[t];
    const int written = writer.write_of_tile[tile_index(static_cast<int>(op.operand), p, inst.k)];
    if (written < 0) {
      add("raw-race", inst.op, fmt::format("{}, wave {}: reads {} of tile k={}, but wave {} never loads that part of that tile",
                                           where(reader, t), reader.id, part_name(op, p, slot), inst.k, writer.id));
      return;
    }
    const Event& write = writer.events[written];
    if (ordered(writer.id, write.done_index, write.done_epoch, reader.id, read)) return;
    const std::string why = raw_reason(writer.id, reader.id, write, [&](int i) { return where(writer, i); });
    add("raw-race", inst.op, fmt::format(
        "{}, wave {}: reads {} of tile k={} written by wave {}'s {}, but {}; the ds_read may see stale data "
        "(read-after-write race)", where(reader, t), reader.id, part_name(op, p, slot), inst.k, writer.id,
        where(writer, written), why));
  }

  void check_war(const Wave& reader, int t, const Event& read, const Wave& writer, int p, int slot) {
    const OpInstance& inst = (*reader.stream)[t];
    const ScheduleOp& op = s_.ops[inst.op];
    const int loaded = writer.write_of_tile[tile_index(static_cast<int>(op.operand), p, inst.k)];
    if (loaded < 0) return;  // reported as a RAW problem
    const auto& slot_writes = writer.writes_to_slot[slot_index(static_cast<int>(op.operand), p, slot)];
    auto next = std::upper_bound(slot_writes.begin(), slot_writes.end(), loaded);
    if (next == slot_writes.end()) return;
    const Event& overwrite = writer.events[*next];
    if (ordered(reader.id, read.done_index, read.done_epoch, writer.id, overwrite)) return;
    const OpInstance& w_inst = (*writer.stream)[*next];
    const std::string why = war_reason(reader.id, writer.id, read, overwrite, [&](int i) { return where(reader, i); });
    add("war-race", w_inst.op, fmt::format(
        "{}, wave {}: overwrites {} with tile k={} while wave {} may still be reading tile k={} from it with {}: {} "
        "(write-after-read race; the G2S of tile {} lands in the slot still being read)",
        where(writer, *next), writer.id, part_name(op, p, slot), w_inst.k, reader.id, inst.k, where(reader, t), why,
        w_inst.k));
  }

  const Schedule& s_;
  int k_tiles_;
  std::vector<Finding>& findings_;
  size_t max_findings_;
  std::set<std::pair<std::string, int>> reported_;
  std::vector<OpInstance> streams_[2];
  int parts_ = 0;  // the larger operand's G2S part count
  int kpacks_ = 0, g2s_parts_[2] = {};
  std::vector<int> ds_reads_;                 // per op (S2R)
  std::vector<std::vector<int>> parts_read_;  // [op][wave] (S2R)
  std::vector<Wave> waves_;
};

}  // namespace

void simulate_hazards(const Schedule& s, int k_tiles, std::vector<Finding>& findings, size_t max_findings) {
  Simulation(s, k_tiles, findings, max_findings).run();
}

}  // namespace cdna4::detail
