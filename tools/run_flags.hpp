#pragma once
// The flags cdna4-gemm and cdna4-attn share for their one launch: where it
// runs, how the emulator runs it, its limits, the model's outputs and how the
// results print; and the EmulatorConfig and LaunchOptions they make.
#include <cstdint>
#include <optional>
#include <string>

#include "cdna4/runtime.hpp"
#include "cli_names.hpp"
#include "cli_numbers.hpp"
#include "model_output.hpp"
#include "output_file.hpp"
#include "timeline_svg.hpp"

namespace cdna4::tools {

constexpr uint64_t kMaxThreads = 4096;

struct RunFlags {
  std::string device = "emulator", trace, timeline;
  uint64_t seed = 1;
  bool instant = false, timed = false, json = false, quiet = false;
  MfmaPolicy mfma_policy = MfmaPolicy::fp32_fma_chain_k_order;
  unsigned threads = 0;
  std::optional<uint64_t> max_trace_bytes, max_instructions;
  std::optional<double> timeout;
};

// --help lines of the flags that choose how the emulator runs, and of the
// model device's outputs.
inline const char* kEmulatorFlagsHelp =
    "  --instant                 emulator: memory completes at issue (faster, no race search)\n"
    "  --timed                   emulator: waves issue in clock order, memory completes after gfx950's\n"
    "                            latencies (deterministic; for results that depend on timing)\n"
    "  --mfma-policy NAME        emulator: how MFMAs add, fp32-fma-chain-k-order (default) or\n"
    "                            cdna3-fused-groups; --check uses the same (docs/emulator.md)\n"
    "  --max-instructions N      emulator: stop after N wave-instructions (default 2^36; 0: no limit)\n"
    "  --timeout SECONDS         emulator: stop after SECONDS of wall time (default 600; 0: no limit)\n";
inline const char* kModelOutputFlagsHelp =
    "  --trace FILE.json         model device: write the modeled timeline of one CU in the\n"
    "                            Chrome trace-event format (Perfetto, chrome://tracing)\n"
    "  --timeline FILE.svg       model device: draw two steady-state loop trips of that\n"
    "                            timeline, a row per wave grouped by SIMD\n"
    "  --max-trace-bytes SIZE    model device: host bytes the recorded instruction traces and\n"
    "                            the timeline may hold (suffix K, M or G; default 2G; 0: no\n"
    "                            limit); past it the run stops with an error\n"
    "  --threads N               emulator: host threads running workgroups (default: all cores;\n"
    "                            at most 4096)\n";

// Takes `arg` (its value read through `value()`) when it is one of these flags.
template <class Failure, class Value>
bool parse_run_flag(const std::string& arg, Value value, RunFlags& f) {
  if (arg == "--device") f.device = value();
  else if (arg == "--seed") f.seed = parse_unsigned<Failure>(value(), arg);
  else if (arg == "--instant") f.instant = true;
  else if (arg == "--timed") f.timed = true;
  else if (arg == "--mfma-policy") f.mfma_policy = parse_named<MfmaPolicy, Failure>(value(), arg);
  else if (arg == "--threads") f.threads = unsigned(parse_unsigned<Failure>(value(), arg, kMaxThreads));
  else if (arg == "--max-instructions") f.max_instructions = parse_unsigned<Failure>(value(), arg);
  else if (arg == "--timeout") f.timeout = parse_seconds<Failure>(value(), arg);
  else if (arg == "--trace") f.trace = output_path<Failure>(value(), arg);
  else if (arg == "--timeline") f.timeline = output_path<Failure>(value(), arg);
  else if (arg == "--max-trace-bytes") f.max_trace_bytes = parse_size<Failure>(value(), arg);
  else if (arg == "--json") f.json = true;
  else if (arg == "--quiet") f.quiet = true;
  else return false;
  return true;
}

// Refuses flags that do nothing on the device asked for.
template <class Failure>
void check_run_flags(const RunFlags& f) {
  if ((f.timed || f.instant) && f.device == "hsa")
    throw Failure("--timed and --instant choose how the emulator runs; --device hsa runs the hardware");
  if (!f.trace.empty() && f.device != "model") throw Failure("--trace needs --device model");
  if (!f.timeline.empty() && f.device != "model") throw Failure("--timeline needs --device model");
  if (f.max_trace_bytes && f.device != "model") throw Failure("--max-trace-bytes needs --device model");
}

inline EmulatorConfig emulator_config(const RunFlags& f) {
  EmulatorConfig config;
  config.seed = f.seed;
  config.instant_completion = f.instant;
  config.timed = f.timed;
  config.mfma_policy = f.mfma_policy;
  config.threads = f.threads;
  config.model_timeline = f.device == "model";  // one CU's slices: the steady-state figures
  config.max_trace_bytes = f.max_trace_bytes.value_or(config.max_trace_bytes);
  return config;
}

// Races are reported, not fatal: the tools print them and exit 3.
inline LaunchOptions launch_options(const RunFlags& f) {
  LaunchOptions launch;
  launch.max_instructions = f.max_instructions;
  launch.time_limit_seconds = f.timeout;
  launch.on_race = OnRace::Report;
  return launch;
}

// --trace and --timeline of a model run, staged with the run's other outputs.
inline void stage_model_outputs(OutputFiles& outputs, const RunFlags& f, const LaunchStats& launch,
                                const std::string& title) {
  if (!launch.model) return;
  if (!f.trace.empty()) outputs.stage(f.trace, [&](std::ostream& out) { chrome_trace(out, *launch.model); });
  if (!f.timeline.empty()) outputs.stage(f.timeline, timeline_svg(*launch.model, title));
}

}  // namespace cdna4::tools
