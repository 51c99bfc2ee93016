// Mutation test: every mutant of a shipped schedule that the independent
// reference executor shows to be unsafe must be rejected by the verifier.
#include <catch2/catch.hpp>

#include <iostream>

#include "codegen/schedule/geometry.hpp"
#include "schedule_mutants.hpp"
#include "schedule_reference_model.hpp"
#include "schedule_test_support.hpp"

using namespace cdna4;

namespace {

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
    // The f16 variants have their bf16 schedule's ops, so the same mutants.
    if (file.find("_f16_") != std::string::npos) continue;
    const Schedule s = schedule_test::planned(file);
    REQUIRE(verify(s).accepted());
    int file_total = 0, file_killed = 0, file_safe = 0;
    for (const schedule_test::Mutant& m : schedule_test::mutants_of(s)) {
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
