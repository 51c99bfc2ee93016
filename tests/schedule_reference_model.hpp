#pragma once
// Reference model for the mutation test, written independently of the verifier:
// it *executes* the workgroup concretely, wave by wave, under several
// interleavings and adversarial memory timings, with every LDS piece holding the
// tile number last written to it, and reports a schedule unsafe as soon as an
// MFMA consumes registers that do not hold the tile it computes. It shares only
// the documented geometry (parts, halves, ds_read counts) with the library.
#include <cdna4/schedule.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace schedule_reference {

struct Verdict {
  bool unsafe = false;
  std::string why;
};

struct Step {
  int op = -1;  // -1: ping-pong phase-shift barrier
  int k = 0;
  long long vm_pos = 0, lgkm_pos = 0;  // steady-state counter position before the step
};

// Flattened program of one wave group, with counter positions of the steady stream.
inline std::vector<Step> program(const cdna4::Schedule& s, int k_tiles, int group) {
  std::vector<int> body(s.ops.size());
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<int>(i);
  std::stable_sort(body.begin(), body.end(), [&](int x, int y) { return s.ops[x].order < s.ops[y].order; });
  int d = 1;
  for (const auto& op : s.ops) d = std::max(d, op.stage + 1);
  long long vm_per = 0, lgkm_per = 0;
  for (int i : body) {
    if (s.ops[i].kind == cdna4::OpKind::g2s) ++vm_per;
    if (s.ops[i].kind == cdna4::OpKind::s2r) lgkm_per += cdna4::ds_reads(s, s.ops[i]);
  }
  const int shift = group == 1 ? d - 1 : std::max(k_tiles, d - 1);
  std::vector<Step> out;
  for (int it = 0; it <= k_tiles + d - 1; ++it) {
    if (s.pingpong_groups == 2 && it == shift) out.push_back(Step{-1, 0, 0, 0});
    if (it == k_tiles + d - 1) break;
    long long vm = it * vm_per, lgkm = it * lgkm_per;
    for (int i : body) {
      const auto& op = s.ops[i];
      const int k = it - op.stage;
      if (k >= 0 && k < k_tiles) out.push_back(Step{i, k, vm, lgkm});
      if (op.kind == cdna4::OpKind::g2s) ++vm;
      if (op.kind == cdna4::OpKind::s2r) lgkm += cdna4::ds_reads(s, op);
    }
  }
  return out;
}

class Executor {
 public:
  enum class Timing { late_writes_early_reads, early_writes_late_reads, random };

  Executor(const cdna4::Schedule& s, int k_tiles, std::vector<int> priority, Timing timing, unsigned seed)
      : s_(s), k_(k_tiles), priority_(std::move(priority)), timing_(timing), rng_(seed) {
    for (int g = 0; g < s.pingpong_groups; ++g) programs_[g] = program(s, k_tiles, g);
    waves_.resize(s.waves);
  }

  Verdict run() {
    for (;;) {
      int chosen = -1;
      if (priority_.empty()) {
        std::vector<int> ready;
        for (int w = 0; w < s_.waves; ++w) if (runnable(w)) ready.push_back(w);
        if (!ready.empty()) chosen = ready[rng_() % ready.size()];
      } else {
        for (int w : priority_) if (runnable(w)) { chosen = w; break; }
      }
      if (chosen < 0) {
        if (release_barrier()) continue;
        break;
      }
      step(chosen);
      if (verdict_.unsafe) return verdict_;
    }
    for (int w = 0; w < s_.waves; ++w)
      if (waves_[w].pc < static_cast<int>(prog(w).size())) return fail("deadlock: waves wait at different s_barriers");
    return verdict_;
  }

 private:
  struct PendingWrite { long long pos; int operand, part, slot, k; };
  struct PendingRead { long long last_pos; int reg; };
  struct Wave {
    int pc = 0;
    bool at_barrier = false;
    std::vector<PendingWrite> writes;
    std::vector<PendingRead> reads;
    std::map<std::tuple<int, int, int, int>, int> latest;  // (operand, kpack, half, k) -> register set
  };
  struct Registers { int k; bool performed = false; bool good = true; int operand, op, wave; };

  const std::vector<Step>& prog(int w) const { return programs_[cdna4::wave_coord(s_, w).group]; }
  bool runnable(int w) const { return waves_[w].pc < static_cast<int>(prog(w).size()) && !waves_[w].at_barrier; }

  Verdict fail(std::string why) {
    if (!verdict_.unsafe) verdict_ = Verdict{true, std::move(why)};
    return verdict_;
  }

  bool release_barrier() {
    int arrived = 0;
    for (const Wave& w : waves_) arrived += w.at_barrier;
    if (arrived == 0) return false;
    if (arrived != s_.waves) return false;  // someone finished: deadlock
    for (Wave& w : waves_) { w.at_barrier = false; ++w.pc; }
    return true;
  }

  void land(int w, const PendingWrite& pw) {
    auto it = lds_.find({pw.operand, pw.part, pw.slot, w});
    if (it == lds_.end()) it = lds_.emplace(std::tuple{pw.operand, pw.part, pw.slot, w}, -1).first;
    it->second = pw.k;
  }

  void perform(int w, const PendingRead& pr) {
    Registers& r = regs_[pr.reg];
    const auto& op = s_.ops[r.op];
    for (int p : cdna4::parts_read(s_, op, w))
      for (int piece = 0; piece < s_.waves; ++piece) {
        auto it = lds_.find({r.operand, p, r.k % s_.lds_buffers, piece});
        if (it == lds_.end() || it->second != r.k) r.good = false;
      }
    r.performed = true;
  }

  bool coin() { return rng_() & 1; }

  // Let the memory system make progress on its own, as the timing policy says.
  void drift(int w) {
    Wave& wave = waves_[w];
    const bool land_now = timing_ == Timing::early_writes_late_reads || (timing_ == Timing::random && coin());
    const bool read_now = timing_ == Timing::late_writes_early_reads || (timing_ == Timing::random && coin());
    if (land_now && !wave.writes.empty()) {  // in issue order
      land(w, wave.writes.front());
      wave.writes.erase(wave.writes.begin());
    }
    if (read_now && !wave.reads.empty()) {
      perform(w, wave.reads.front());
      wave.reads.erase(wave.reads.begin());
    }
  }

  void step(int w) {
    Wave& wave = waves_[w];
    const Step& st = prog(w)[wave.pc];
    if (st.op < 0) { wave.at_barrier = true; return; }
    const auto& op = s_.ops[st.op];
    if (op.vmcnt)  // every load older than the N most recent steady-state slots
      while (!wave.writes.empty() && wave.writes.front().pos < st.vm_pos - *op.vmcnt) {
        land(w, wave.writes.front());
        wave.writes.erase(wave.writes.begin());
      }
    if (op.lgkmcnt)
      while (!wave.reads.empty() && wave.reads.front().last_pos < st.lgkm_pos - *op.lgkmcnt) {
        perform(w, wave.reads.front());
        wave.reads.erase(wave.reads.begin());
      }
    using cdna4::OpKind;
    switch (op.kind) {
      case OpKind::barrier: wave.at_barrier = true; return;
      case OpKind::g2s:
        wave.writes.push_back(PendingWrite{st.vm_pos, static_cast<int>(op.operand), op.part, st.k % s_.lds_buffers, st.k});
        break;
      case OpKind::s2r: {
        regs_.push_back(Registers{st.k, false, true, static_cast<int>(op.operand), st.op, w});
        const int reg = static_cast<int>(regs_.size()) - 1;
        wave.reads.push_back(PendingRead{st.lgkm_pos + cdna4::ds_reads(s_, op) - 1, reg});
        for_units(op, op.operand, [&](int c, int h) { wave.latest[{static_cast<int>(op.operand), c, h, st.k}] = reg; });
        break;
      }
      case OpKind::mfma:
        for (auto o : {cdna4::Operand::a, cdna4::Operand::b})
          for_units(op, o, [&](int c, int h) {
            auto it = wave.latest.find({static_cast<int>(o), c, h, st.k});
            if (it == wave.latest.end()) { fail("MFMA without operand registers"); return; }
            const Registers& r = regs_[it->second];
            if (!r.performed) fail("MFMA consumed registers before its ds_read returned");
            else if (!r.good) fail("ds_read returned data of another tile");
          });
        break;
      default: break;
    }
    ++wave.pc;
    drift(w);
  }

  template <typename F>
  void for_units(const cdna4::ScheduleOp& op, cdna4::Operand o, F&& f) {
    const auto& half = o == cdna4::Operand::a ? op.m_half : op.n_half;
    for (int c = 0; c < cdna4::kpacks(s_); ++c)
      for (int h = 0; h < 2; ++h)
        if ((!op.kpack || *op.kpack == c) && (!half || *half == h)) f(c, h);
  }

  const cdna4::Schedule& s_;
  int k_;
  std::vector<int> priority_;
  Timing timing_;
  std::mt19937 rng_;
  std::vector<Step> programs_[2];
  std::vector<Wave> waves_;
  std::vector<Registers> regs_;
  std::map<std::tuple<int, int, int, int>, int> lds_;
  Verdict verdict_;
};

// Unsafe if any interleaving / timing policy of any K shows a wrong MFMA operand.
inline Verdict check(const cdna4::Schedule& s, const std::vector<int>& k_values) {
  std::vector<std::vector<int>> orders;
  std::vector<int> up(s.waves);
  for (int w = 0; w < s.waves; ++w) up[w] = w;
  std::vector<int> down(up.rbegin(), up.rend());
  orders.push_back(up);
  orders.push_back(down);
  for (int first : {s.waves / 2, s.waves / 2 - 1}) {  // a wave of the other group / wave row leads
    std::vector<int> o = {first};
    for (int w : up) if (w != first) o.push_back(w);
    orders.push_back(o);
  }
  using T = Executor::Timing;
  for (int k : k_values) {
    for (const auto& order : orders)
      for (T timing : {T::late_writes_early_reads, T::early_writes_late_reads}) {
        Verdict v = Executor(s, k, order, timing, 1).run();
        if (v.unsafe) return Verdict{true, "K=" + std::to_string(k) + ": " + v.why};
      }
    for (unsigned seed = 1; seed <= 3; ++seed) {
      Verdict v = Executor(s, k, {}, T::random, seed).run();
      if (v.unsafe) return Verdict{true, "K=" + std::to_string(k) + " (random): " + v.why};
    }
  }
  return {};
}

}  // namespace schedule_reference
