// The verifier's mutants on the emulator: every mutant it accepts must still be
// race-free and bit-exact under randomized completion (integer data, exact in any
// summation order, since exchanging two MFMA groups legitimately reorders the
// sums); the mutants it rejects, lowered anyway, are run to see whether the
// emulator shows their race or wrong result.
#include <catch2/catch.hpp>

#include <atomic>
#include <iostream>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "cdna4/gemm.hpp"
#include "gemm_support.hpp"
#include "schedule_mutants.hpp"
#include "schedule_test_support.hpp"

using namespace cdna4;

namespace {

enum class Outcome { exact, race, wrong, failed };

struct Job {
  std::string file;
  schedule_test::Mutant mutant;
  bool accepted = false;
  Outcome outcome = Outcome::exact;
  std::string detail;
};

// Tile-exact M and N and three K tiles: prologue, steady state and epilogue all run.
Outcome run_on_emulator(const Schedule& s, bool verified, uint64_t seed, std::string& detail) {
  const int64_t m = s.tile_m, n = s.tile_n, k = 3 * s.tile_k;
  const auto a = test::typed_matrix(s.type_a, size_t(m * k), true, 5);
  const auto b = test::typed_matrix(s.type_b, size_t(k * n), true, 6);
  const auto sa = s.scaled ? test::scale_bytes(size_t(m * (k / 32)), true, 7) : std::vector<uint8_t>{};
  const auto sb = s.scaled ? test::scale_bytes(size_t((k / 32) * n), true, 8) : std::vector<uint8_t>{};
  EmulatorConfig config;
  config.seed = seed;
  config.max_races = 1;
  config.threads = 1;
  Device device = Device::emulator(config);
  LaunchOptions launch;
  launch.on_race = OnRace::Report;
  CompileOptions options;
  options.verify = verified;
  options.use_cache = false;
  try {
    const GemmRun run = run_gemm(device, s, test::scaled(test::problem(m, n, k, a, b, OutType::f32), sa, sb), options, launch);
    if (!run.launch.races.empty()) {
      detail = describe(run.launch.races.front());
      return Outcome::race;
    }
    const size_t diff = differing_elements(run.c, to_output_bits(reference_gemm(s.type_a, a, s.type_b, b, m, n, k, sa, sb), DataType::f32), 4);
    detail = fmt::format("{} elements differ", diff);
    return diff == 0 ? Outcome::exact : Outcome::wrong;
  } catch (const Error& e) {
    detail = e.what();
    return Outcome::failed;
  }
}

void run_job(Job& job) {
  job.accepted = verify(job.mutant.schedule).accepted();
  for (uint64_t seed : {1, 2}) {
    job.outcome = run_on_emulator(job.mutant.schedule, job.accepted, seed, job.detail);
    if (job.accepted || job.outcome != Outcome::exact) return;  // accepted: one seed; rejected: until shown
  }
}

}  // namespace

TEST_CASE("mutants on the emulator: accepted ones stay exact, rejected ones show races", "[gemm][mutation]") {
  std::vector<Job> jobs;
  for (const auto& file : schedule_test::shipped_files()) {
    // The f16 variants have their bf16 schedule's ops, so the same mutants.
    if (file.find("_f16_") != std::string::npos) continue;
    const Schedule s = schedule_test::planned(file);
    for (auto& m : schedule_test::mutants_of(s)) jobs.push_back({file, std::move(m)});
  }
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs.size();) run_job(jobs[i]);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();

  int accepted = 0, accepted_exact = 0, rejected = 0, shown = 0, races = 0, wrong = 0, faults = 0;
  for (const Job& job : jobs) {
    if (job.accepted) {
      ++accepted;
      accepted_exact += job.outcome == Outcome::exact;
      if (job.outcome != Outcome::exact)
        FAIL_CHECK(job.file << ": accepted mutant " << job.mutant.what << " is not exact: " << job.detail);
      continue;
    }
    ++rejected;
    shown += job.outcome != Outcome::exact;
    races += job.outcome == Outcome::race;
    wrong += job.outcome == Outcome::wrong;
    faults += job.outcome == Outcome::failed;
  }
  std::cout << fmt::format(
      "emulator mutants: {} accepted by the verifier ({} bit-exact and race-free); {} rejected, of which the emulator "
      "showed {}: {} races, {} wrong results, {} faults (deadlock or out-of-range access)\n",
      accepted, accepted_exact, rejected, shown, races, wrong, faults);
  CHECK(accepted_exact == accepted);
  CHECK(accepted > 0);
  CHECK(rejected > 0);
}
