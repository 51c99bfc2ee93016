#pragma once
// Mutants of a schedule: each wait raised by 1..3 (fewer operations waited for),
// each barrier dropped (or turned into a plain wait), each G2S one stage later,
// and every pair of ops exchanged in the loop body.
#include <string>
#include <vector>

#include "cdna4/schedule.hpp"

namespace schedule_test {

using namespace cdna4;

struct Mutant {
  std::string what;
  Schedule schedule;
};

inline std::vector<Mutant> mutants_of(const Schedule& s) {
  std::vector<Mutant> out;
  const int n = static_cast<int>(s.ops.size());
  for (int i = 0; i < n; ++i) {
    const ScheduleOp& op = s.ops[i];
    for (int d = 1; d <= 3; ++d) {
      if (op.vmcnt && *op.vmcnt + d <= 63) {
        Mutant m{describe(s, i) + " vmcnt+" + std::to_string(d), s};
        *m.schedule.ops[i].vmcnt += d;
        out.push_back(std::move(m));
      }
      if (op.lgkmcnt && *op.lgkmcnt + d <= 15) {
        Mutant m{describe(s, i) + " lgkmcnt+" + std::to_string(d), s};
        *m.schedule.ops[i].lgkmcnt += d;
        out.push_back(std::move(m));
      }
    }
    if (op.kind == OpKind::barrier) {
      Mutant m{describe(s, i) + " dropped", s};
      m.schedule.ops.erase(m.schedule.ops.begin() + i);
      out.push_back(std::move(m));
      if (op.vmcnt || op.lgkmcnt) {
        Mutant w{describe(s, i) + " dropped, its waits kept", s};
        w.schedule.ops[i].kind = OpKind::wait;
        out.push_back(std::move(w));
      }
    }
    if (op.kind == OpKind::g2s) {
      Mutant m{describe(s, i) + " one stage later", s};
      ++m.schedule.ops[i].stage;
      out.push_back(std::move(m));
    }
    for (int j = i + 1; j < n; ++j) {  // exchange the two ops' positions in the body
      Mutant m{"swap " + describe(s, i) + " <-> " + describe(s, j), s};
      std::swap(m.schedule.ops[i].order, m.schedule.ops[j].order);
      std::swap(m.schedule.ops[i].phase, m.schedule.ops[j].phase);
      out.push_back(std::move(m));
    }
  }
  return out;
}

}  // namespace schedule_test
