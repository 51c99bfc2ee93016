// Mutation test: every mutant of a shipped schedule that the independent
// reference executor shows to be unsafe must be rejected by the verifier.
#include <catch2/catch.hpp>

#include <iostream>

#include "schedule_reference_model.hpp"
#include "schedule_test_support.hpp"

using namespace cdna4;

namespace {

struct Mutant {
  std::string what;
  Schedule schedule;
};

std::vector<Mutant> mutants_of(const Schedule& s) {
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

std::vector<int> reference_k_values(const Schedule& s) {
  std::vector<int> ks = {1, 2, depth(s) + 1, depth(s) + s.lds_buffers + 2};
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  return ks;
}

}  // namespace

TEST_CASE("reference executor: shipped schedules are safe, the seeds' bugs are not", "[schedule][mutation]") {
  for (const auto& file : schedule_test::shipped_files()) {
    const Schedule s = schedule_test::planned(file);
    const auto v = schedule_reference::check(s, reference_k_values(s));
    INFO(file << ": " << v.why);
    CHECK_FALSE(v.unsafe);
  }
  for (const auto& file : schedule_test::fixture_files()) {
    const Schedule s = schedule_test::planned(file);
    INFO(file);
    CHECK(schedule_reference::check(s, reference_k_values(s)).unsafe);
  }
}

TEST_CASE("mutation test: the verifier rejects every unsafe mutant", "[schedule][mutation]") {
  int total = 0, killed = 0, safe = 0, safe_rejected = 0, unsafe_accepted = 0;
  for (const auto& file : schedule_test::shipped_files()) {
    const Schedule s = schedule_test::planned(file);
    REQUIRE(verify(s).accepted());
    int file_total = 0, file_killed = 0, file_safe = 0;
    for (const Mutant& m : mutants_of(s)) {
      const bool rejected = !verify(m.schedule).accepted();
      const auto ref = schedule_reference::check(m.schedule, reference_k_values(m.schedule));
      ++file_total;
      file_killed += rejected;
      file_safe += !ref.unsafe;
      safe_rejected += !ref.unsafe && rejected;
      if (ref.unsafe && !rejected) {
        ++unsafe_accepted;
        FAIL_CHECK(file << ": unsafe mutant accepted: " << m.what << " (" << ref.why << ")");
      }
    }
    std::cout << "mutation " << file << ": killed " << file_killed << "/" << file_total << ", judged safe "
              << file_safe << "\n";
    total += file_total;
    killed += file_killed;
    safe += file_safe;
  }
  std::cout << "mutation total: killed " << killed << "/" << total << " mutants; the reference executor judged "
            << safe << " safe (" << safe_rejected << " of them rejected anyway by a static rule or a conservative "
            << "check); unsafe but accepted: " << unsafe_accepted << "\n";
  CHECK(unsafe_accepted == 0);
  CHECK(killed >= total - safe);
}
