// Symbolic simulation of every wave over one count of KV blocks, in the
// happens-before model of codegen/schedule/wave_events.hpp (shared with the GEMM
// verifier). LDS: every wave writes its own 1 KiB of every G2S part of the K and V
// blocks, and every wave reads all of both blocks (each wave's 16 query rows meet
// every key): an S2R of K reads every part of its slot (each kpack is 32 d of
// every key), an S2R of V kpack c the part holding keys 16c .. 16c + 15. Registers: one
// set each for S (scores, then P in f32), m/alpha, the l partials, O, P in bf16
// per kpack and the K and V operands per kpack; an op reading a set needs the
// set's last writer to be the producer the chain names, of the right block.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "codegen/attention_schedule/geometry.hpp"
#include "codegen/attention_schedule/verifier_internal.hpp"
#include "codegen/schedule/op_list.hpp"
#include "codegen/schedule/stream_expansion.hpp"
#include "codegen/schedule/wave_events.hpp"

namespace cdna4::detail {
namespace {

using K = AttentionOpKind;

// The last write of a register set: op kind, kpack (-1 none), block, stream index.
struct Writer {
  int kind = -1;  // AttentionOpKind, -1: never written
  int kpack = -1;
  int block = -1;
  int index = -1;
  int op = -1;
};

// An op's expectation of a register set: written last by `kind` (kpack) of its own
// block, or (previous) of the block before, which for block 0 means never written.
struct Expect {
  int reg;
  K kind;
  int kpack;
  bool previous;
};

class Simulation {
 public:
  Simulation(const AttentionSchedule& s, int blocks, std::vector<Finding>& findings, size_t max_findings)
      : s_(s), blocks_(blocks), findings_(findings), max_findings_(max_findings), geo_(AttentionGeometry::of(s)),
        parts_(geo_.parts()), qk_(geo_.qk_kpacks()), pv_(geo_.key_tiles()) {}

  void run() {
    stream_ = expand_ops(s_.ops, emission_order(s_.ops), blocks_, depth(s_),
                         vm_instructions, [&](const AttentionOp& op) { return lgkm_instructions(geo_, op); },
                         [](int, std::vector<OpInstance>&) {});
    waves_.resize(s_.waves);
    for (int w = 0; w < s_.waves; ++w) run_wave(w);
    for (int v = 0; v < s_.waves; ++v) check_lds_reads(v);
  }

 private:
  struct Wave {
    int id = 0;
    std::vector<Event> events;
    std::vector<int> write_of_block;               // [operand][part][t] -> stream index, or -1
    std::vector<std::vector<int>> writes_to_slot;  // [operand][part][slot] -> stream indices
  };

  // Register sets: S, m/alpha, l, O, then P per PV kpack, K per QK kpack, V per PV kpack.
  enum { kS, kM, kL, kO, kFixed };
  int p_reg(int c) const { return kFixed + c; }
  int k_reg(int c) const { return kFixed + pv_ + c; }
  int v_reg(int c) const { return kFixed + pv_ + qk_ + c; }
  int registers() const { return kFixed + 2 * pv_ + qk_; }
  std::string reg_name(int r) const {
    if (r == kS) return "S (the scores, then P in f32)";
    if (r == kM) return "m / mc / alpha (the row max state)";
    if (r == kL) return "the l partials (row sums)";
    if (r == kO) return "the O accumulator";
    if (r < k_reg(0)) return fmt::format("P kpack {} (bf16)", r - p_reg(0));
    if (r < v_reg(0)) return fmt::format("the K registers of kpack {}", r - k_reg(0));
    return fmt::format("the V registers of kpack {}", r - v_reg(0));
  }

  int block_index(int operand, int part, int t) const { return (operand * parts_ + part) * blocks_ + t; }
  int slot_index(int operand, int part, int slot) const { return (operand * parts_ + part) * s_.lds_buffers + slot; }

  std::string where(int index) const {
    const OpInstance& inst = stream_[index];
    return fmt::format("{} in {} (KV block {})", describe(s_, inst.op),
                       describe_iteration_at(depth(s_), inst.iteration, blocks_), inst.k);
  }

  void add(const std::string& rule, int op, std::string message) {
    if (findings_.size() >= max_findings_ || !reported_.insert({rule, op}).second) return;
    findings_.push_back(Finding{rule, op, fmt::format("with {} KV block{}: {}", blocks_, blocks_ == 1 ? "" : "s", message)});
  }

  // What op `op` of block t reads: the chain dot_qk -> mask -> row_max -> exp ->
  // row_sum / convert_p -> dot_pv, rescale_o between row_max and the first dot_pv.
  std::vector<Expect> reads(const AttentionOp& op) const {
    const KpackRange r = geo_.kpack_range(op);
    std::vector<Expect> e;
    switch (op.kind) {
      case K::dot_qk:
        for (int c = r.first; c <= r.last; ++c) e.push_back({k_reg(c), K::s2r, c, false});
        if (r.first > 0) e.push_back({kS, K::dot_qk, r.first - 1, false});
        break;
      case K::mask: e.push_back({kS, K::dot_qk, qk_ - 1, false}); break;
      case K::row_max:
        e.push_back({kS, K::mask, -1, false});
        e.push_back({kM, K::row_max, -1, true});
        break;
      case K::exp:
        e.push_back({kS, K::mask, -1, false});
        e.push_back({kM, K::row_max, -1, false});
        break;
      case K::row_sum:
        e.push_back({kS, K::exp, -1, false});
        e.push_back({kM, K::row_max, -1, false});
        e.push_back({kL, K::row_sum, -1, true});
        break;
      case K::rescale_o:
        e.push_back({kM, K::row_max, -1, false});
        e.push_back({kO, K::dot_pv, pv_ - 1, true});
        break;
      case K::convert_p: e.push_back({kS, K::exp, -1, false}); break;
      case K::dot_pv:
        for (int c = r.first; c <= r.last; ++c) {
          e.push_back({v_reg(c), K::s2r, c, false});
          e.push_back({p_reg(c), K::convert_p, c, false});
        }
        e.push_back(r.first > 0 ? Expect{kO, K::dot_pv, r.first - 1, false} : Expect{kO, K::rescale_o, -1, false});
        break;
      default: break;
    }
    return e;
  }

  // The register sets op writes, each with the kpack it leaves there.
  std::vector<std::pair<int, int>> writes(const AttentionOp& op) const {
    const KpackRange r = geo_.kpack_range(op);
    std::vector<std::pair<int, int>> w;
    switch (op.kind) {
      case K::s2r:
        for (int c = r.first; c <= r.last; ++c) w.emplace_back(op.operand == KvOperand::k ? k_reg(c) : v_reg(c), c);
        break;
      case K::dot_qk: w.emplace_back(kS, r.last); break;
      case K::mask:
      case K::exp: w.emplace_back(kS, -1); break;
      case K::row_max: w.emplace_back(kM, -1); break;
      case K::row_sum: w.emplace_back(kL, -1); break;
      case K::rescale_o: w.emplace_back(kO, -1); break;
      case K::convert_p:
        for (int c = r.first; c <= r.last; ++c) w.emplace_back(p_reg(c), c);
        break;
      case K::dot_pv: w.emplace_back(kO, r.last); break;
      default: break;
    }
    return w;
  }

  std::string producer(int reg, K kind, int kpack, int block) const {
    std::string p = to_string(kind);
    if (kind == K::s2r) p += reg >= v_reg(0) ? " v" : " k";
    if (kpack >= 0) p += fmt::format(" kpack {}", kpack);
    return fmt::format("{} of block {}", p, block);
  }

  std::string writer_text(const Writer& w) const {
    if (w.kind < 0) return "nothing yet";
    return fmt::format("{} (block {})", describe(s_, w.op), w.block);
  }

  void check_read(int wave, int t, const Expect& e, const std::vector<Writer>& regs, WaveCounters& counters,
                  const std::vector<Event>& events) {
    const OpInstance& inst = stream_[t];
    const int block = e.previous ? inst.k - 1 : inst.k;
    const Writer& w = regs[e.reg];
    const bool want_none = block < 0;
    const bool match = want_none ? w.kind < 0
                                 : w.kind == static_cast<int>(e.kind) && w.kpack == e.kpack && w.block == block;
    const std::string wanted = want_none ? "no earlier block's value (this is block 0)" : producer(e.reg, e.kind, e.kpack, block);
    if (!match) {
      if (w.kind >= 0 && w.block > inst.k)
        add("register-overwrite", inst.op, fmt::format(
            "{}, wave {}: reads {} expecting {}, but {} of block {} already overwrote it (one register set: every "
            "reader of block {} must come before block {}'s writer)", where(t), wave, reg_name(e.reg), wanted,
            describe(s_, w.op), w.block, inst.k, w.block));
      else
        add("register-chain", inst.op, fmt::format(
            "{}, wave {}: reads {} expecting {}, but it was last written by {}: the op runs before its producer",
            where(t), wave, reg_name(e.reg), wanted, writer_text(w)));
      return;
    }
    if (e.kind != K::s2r || events[w.index].done_index != kNever) return;
    add("dot-lgkmcnt", inst.op, fmt::format(
        "{}, wave {}: consumes {} loaded by {} whose ds_reads are still in flight; s_waitcnt lgkmcnt({}) or lower is "
        "needed before this op", where(t), wave, reg_name(e.reg), where(w.index), counters.lgkm_newer_than(w.index)));
  }

  void run_wave(int id) {
    Wave& w = waves_[id];
    w.id = id;
    w.events.resize(stream_.size());
    w.write_of_block.assign(size_t(2 * parts_ * blocks_), -1);
    w.writes_to_slot.assign(size_t(2 * parts_ * s_.lds_buffers), {});
    WaveCounters counters(w.events);
    std::vector<Writer> regs(registers());
    int epoch = 0;
    for (int t = 0; t < static_cast<int>(stream_.size()); ++t) {
      const OpInstance& inst = stream_[t];
      w.events[t].stream_index = t;
      w.events[t].epoch = epoch;
      counters.wait(inst.vmcnt, inst.lgkmcnt, t, epoch);
      const AttentionOp& op = s_.ops[inst.op];
      const int operand = static_cast<int>(op.operand);
      switch (op.kind) {
        case K::barrier: ++epoch; break;
        case K::g2s:
          counters.issue_vm(t);
          if (w.write_of_block[block_index(operand, op.part, inst.k)] < 0)
            w.write_of_block[block_index(operand, op.part, inst.k)] = t;
          w.writes_to_slot[slot_index(operand, op.part, inst.k % s_.lds_buffers)].push_back(t);
          break;
        case K::s2r: counters.issue_lgkm(t, lgkm_instructions(geo_, op)); break;
        default: break;
      }
      for (const Expect& e : reads(op)) check_read(id, t, e, regs, counters, w.events);
      for (const auto& [reg, kpack] : writes(op)) regs[reg] = Writer{static_cast<int>(op.kind), kpack, inst.k, t, inst.op};
    }
    // The epilogue after the loop reads O, l and m of the last block.
    const int last = blocks_ - 1;
    const Expect finals[] = {{kO, K::dot_pv, pv_ - 1, false}, {kL, K::row_sum, -1, false}, {kM, K::row_max, -1, false}};
    for (const Expect& e : finals) {
      const Writer& wr = regs[e.reg];
      if (wr.kind == static_cast<int>(e.kind) && wr.kpack == e.kpack && wr.block == last) continue;
      add("register-chain", wr.op, fmt::format(
          "wave {}: after the loop the epilogue reads {} expecting {}, but it was last written by {}", id, reg_name(e.reg),
          producer(e.reg, e.kind, e.kpack, last), writer_text(wr)));
    }
  }

  std::string part_name(KvOperand o, int p, int slot) const {
    return fmt::format("LDS slot {} part {}[{}]", slot, to_string(o), p);
  }

  // The G2S parts an S2R reads: a K kpack (32 d of every key) all of them; a V
  // kpack (keys 16c .. 16c + 15, part p holding keys p * block_k / parts ..,
  // at least 16 of them) the one part holding its keys.
  KpackRange parts_read(const AttentionOp& op) const {
    if (op.operand == KvOperand::k || !op.kpack) return {0, parts_ - 1};
    const KpackRange keys = geo_.kpack_range(op);
    return {16 * keys.first * parts_ / s_.block_k, 16 * keys.last * parts_ / s_.block_k};
  }

  void check_lds_reads(int v) {
    const Wave& reader = waves_[v];
    for (int t = 0; t < static_cast<int>(stream_.size()); ++t) {
      const OpInstance& inst = stream_[t];
      const AttentionOp& op = s_.ops[inst.op];
      if (op.kind != K::s2r) continue;
      const KpackRange read = parts_read(op);
      for (int p = read.first; p <= read.last; ++p)
        for (const Wave& writer : waves_) {
          check_raw(reader, t, writer, op.operand, p);
          check_war(reader, t, writer, op.operand, p);
        }
    }
  }

  void check_raw(const Wave& reader, int t, const Wave& writer, KvOperand o, int p) {
    const OpInstance& inst = stream_[t];
    const int slot = inst.k % s_.lds_buffers;
    const int written = writer.write_of_block[block_index(static_cast<int>(o), p, inst.k)];
    if (written < 0) {
      add("raw-race", inst.op, fmt::format("{}, wave {}: reads {} of block {}, but wave {} never loads that part of that block",
                                           where(t), reader.id, part_name(o, p, slot), inst.k, writer.id));
      return;
    }
    const Event& write = writer.events[written];
    if (ordered(writer.id, write.done_index, write.done_epoch, reader.id, reader.events[t])) return;
    const std::string why = raw_reason(writer.id, reader.id, write, [&](int i) { return where(i); });
    add("raw-race", inst.op, fmt::format(
        "{}, wave {}: reads {} of block {} written by wave {}'s {}, but {}; the ds_read may see stale data "
        "(read-after-write race)", where(t), reader.id, part_name(o, p, slot), inst.k, writer.id, where(written), why));
  }

  void check_war(const Wave& reader, int t, const Wave& writer, KvOperand o, int p) {
    const OpInstance& inst = stream_[t];
    const int slot = inst.k % s_.lds_buffers;
    const int loaded = writer.write_of_block[block_index(static_cast<int>(o), p, inst.k)];
    if (loaded < 0) return;  // reported as a RAW problem
    const auto& slot_writes = writer.writes_to_slot[slot_index(static_cast<int>(o), p, slot)];
    auto next = std::upper_bound(slot_writes.begin(), slot_writes.end(), loaded);
    if (next == slot_writes.end()) return;
    const Event& read = reader.events[t];
    const Event& overwrite = writer.events[*next];
    if (ordered(reader.id, read.done_index, read.done_epoch, writer.id, overwrite)) return;
    const std::string why = war_reason(reader.id, writer.id, read, overwrite, [&](int i) { return where(i); });
    add("war-race", stream_[*next].op, fmt::format(
        "{}, wave {}: overwrites {} with block {} while wave {} may still be reading block {} from it with {}: {} "
        "(write-after-read race)", where(*next), writer.id, part_name(o, p, slot), stream_[*next].k, reader.id, inst.k,
        where(t), why));
  }

  const AttentionSchedule& s_;
  int blocks_;
  std::vector<Finding>& findings_;
  size_t max_findings_;
  AttentionGeometry geo_;
  int parts_, qk_, pv_;
  std::set<std::pair<std::string, int>> reported_;
  std::vector<OpInstance> stream_;  // the same for every wave
  std::vector<Wave> waves_;
};

}  // namespace

void simulate_attention(const AttentionSchedule& s, int blocks, std::vector<Finding>& findings, size_t max_findings) {
  Simulation(s, blocks, findings, max_findings).run();
}

}  // namespace cdna4::detail
