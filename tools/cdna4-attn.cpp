// cdna4-attn: compile an attention schedule for a shape and run one attention
// forward on the emulator, the timing model or a gfx950, optionally checking O
// and the LSE bit for bit against the policy reference and within tolerance of
// the float64 one.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attention_check.hpp"
#include "attention_shape.hpp"
#include "cdna4/attention.hpp"
#include "cdna4/error.hpp"
#include "cli_conventions.hpp"
#include "cli_names.hpp"
#include "cli_numbers.hpp"
#include "element_data.hpp"
#include "launch_progress.hpp"
#include "model_output.hpp"
#include "output_file.hpp"
#include "report_output.hpp"
#include "run_flags.hpp"
#include "timeline_svg.hpp"

namespace {

using cdna4::tools::UsageError;

const std::string kUsage =
    "usage: cdna4-attn SCHEDULE.json --shape BxNQxNKxHxHKVxD [options]\n"
    "\n"
    "Compiles the attention schedule (schedules/attention/) for the shape and runs\n"
    "one attention forward: O = softmax(scale * Q K^T) V per batch and query head,\n"
    "with Q [B, NQ, H, D], K and V [B, NK, HKV, D] (H a multiple of HKV: MHA, GQA,\n"
    "MQA; D 64 or 128, the schedule's \"dim\"), O [B, NQ, H, D] and, with --lse, the\n"
    "LSE [B, H, NQ] (natural log of the softmax denominator, fp32). Q, K and V are\n"
    "raw bf16 (16-bit little-endian), stored as --layout says; without input files\n"
    "they are generated (N(0, 1) rounded to bf16; seeds S, S+1, S+2).\n"
    "\n"
    "options:\n"
    "  --causal                  the causal mask, aligned to the bottom-right corner (a\n"
    "                            query row that sees no key gives O = 0, LSE = -inf)\n"
    "  --scale S                 softmax scale, a finite fp32 > 0 (default 1/sqrt(D))\n"
    "  --out-type bf16|f32       O's element type (default bf16)\n"
    "  --lse                     compute the LSE as well\n"
    "  --layout bshd|bhsd        how the Q, K, V and O files are stored: [B][S][H][D]\n"
    "                            (default) or [B][H][S][D]; the kernel reads and writes\n"
    "                            them in place at their strides\n"
    "  --q FILE --k FILE --v FILE\n"
    "                            input tensors (all three or none)\n"
    "  --o-out FILE              write O (the output type, --layout)\n"
    "  --lse-out FILE            write the LSE, fp32 [B][H][NQ] (implies --lse)\n"
    "  --check                   compare O and the LSE with the policy reference bit for\n"
    "                            bit (print bit-exact: yes|no and the first difference)\n"
    "                            and with the float64 reference within docs/attention.md's\n"
    "                            tolerance (per element, from the keys a row sees, D, the\n"
    "                            output type and the row's magnitudes)\n"
    "  --device emulator|model|hsa\n"
    "                            where to run (default emulator); model runs on the emulator\n"
    "                            and prints the modeled gfx950 time, TFLOP/s (4 B H NQ NK D\n"
    "                            FLOPs, half of that causal), MFMA utilisation and where\n"
    "                            the waves' time goes\n"
    + std::string(cdna4::tools::kModelOutputFlagsHelp) +
    "  --max-bytes SIZE          refuse a run whose Q, K, V, O and LSE hold more than SIZE\n"
    "                            bytes (suffix K, M or G; default 1G), checked before any\n"
    "                            data is generated or read\n"
    "  --seed S                  data and memory-completion seed (default 1)\n"
    + std::string(cdna4::tools::kEmulatorFlagsHelp) +
    "  --json                    print the compile and launch stats, race reports, the check\n"
    "                            and the model's figures as JSON instead\n"
    "  --quiet                   no progress bar (drawn on stderr only when it is a terminal)\n"
    "  --version                 print the version\n"
    "  -h, --help                this text\n"
    "\n"
    "Outputs (--o-out, --lse-out, --trace, --timeline) must name different files, none of\n"
    "them an input; each is written whole or not at all (through a temporary renamed into\n"
    "place once every output is written; a device or pipe is written directly).\n"
    "Race reports (emulator) print one line each, as cdna4-run does.\n"
    "Exit status: 0 success, 1 error, 2 bad usage, 3 --check found differences or races were reported,\n"
    "130 stopped by Ctrl-C (nothing written).\n";

constexpr uint64_t kDefaultMaxBytes = uint64_t(1) << 30;

struct Options {
  std::string schedule, shape, q, k, v, o_out, lse_out;
  bool causal = false, lse = false, bhsd = false, check = false;
  std::optional<float> scale;
  cdna4::OutType out = cdna4::OutType::bf16;
  uint64_t max_bytes = kDefaultMaxBytes;
  cdna4::tools::RunFlags run;  // device, emulator, limits, model outputs, printing
};

Options parse(int argc, char** argv) {
  namespace tools = cdna4::tools;
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "-h" || arg == "--help") { std::cout << kUsage; std::exit(0); }
    else if (arg == "--version") { tools::print_version("cdna4-attn"); std::exit(0); }
    else if (arg == "--shape") o.shape = value();
    else if (arg == "--causal") o.causal = true;
    else if (arg == "--scale") o.scale = tools::parse_float<UsageError>(value(), arg);
    else if (arg == "--out-type")
      o.out = tools::parse_named<cdna4::OutType, UsageError>(
          value(), arg, [](const auto& row) { return row.value != cdna4::OutType::f16; });
    else if (arg == "--lse") o.lse = true;
    else if (arg == "--layout") {
      const std::string layout = value();
      if (layout != "bshd" && layout != "bhsd") throw UsageError("--layout takes bshd or bhsd");
      o.bhsd = layout == "bhsd";
    }
    else if (arg == "--q") o.q = value();
    else if (arg == "--k") o.k = value();
    else if (arg == "--v") o.v = value();
    else if (arg == "--o-out") o.o_out = tools::output_path<UsageError>(value(), arg);
    else if (arg == "--lse-out") o.lse_out = tools::output_path<UsageError>(value(), arg);
    else if (arg == "--check") o.check = true;
    else if (arg == "--max-bytes") o.max_bytes = tools::parse_size<UsageError>(value(), arg);
    else if (tools::parse_run_flag<UsageError>(arg, value, o.run)) continue;
    else if (!arg.empty() && arg[0] == '-') throw UsageError("unknown option " + arg);
    else if (o.schedule.empty()) o.schedule = arg;
    else throw UsageError("more than one schedule: " + o.schedule + " and " + arg);
  }
  if (o.schedule.empty()) throw UsageError("no schedule given");
  if (o.shape.empty()) throw UsageError(std::string("--shape ") + tools::kAttentionShapeForm + " is required");
  if (o.q.empty() != o.k.empty() || o.q.empty() != o.v.empty()) throw UsageError("give all of --q, --k and --v, or none");
  if (o.run.device != "emulator" && o.run.device != "model" && o.run.device != "hsa")
    throw UsageError("--device takes emulator, model or hsa");
  if (o.run.timed && o.run.instant) throw UsageError("--timed and --instant are two ways to run the emulator: give one");
  tools::check_run_flags<UsageError>(o.run);
  o.lse = o.lse || !o.lse_out.empty();
  tools::check_outputs<UsageError>(
      {{o.schedule, "the schedule"}, {o.q, "--q"}, {o.k, "--k"}, {o.v, "--v"}},
      {{o.o_out, "--o-out"}, {o.lse_out, "--lse-out"}, {o.run.trace, "--trace"}, {o.run.timeline, "--timeline"}});
  return o;
}

// The host bytes of Q, K, V, O and the LSE, in long double: no product of the
// shape's numbers wraps around (exact below 2^64).
long double data_bytes(const cdna4::AttentionShape& s) {
  using Wide = long double;
  const Wide per_token = Wide(s.batch) * Wide(s.dim);
  const Wide q = per_token * Wide(s.seqlen_q) * Wide(s.heads), kv = per_token * Wide(s.seqlen_k) * Wide(s.heads_kv);
  const Wide lse = s.lse ? Wide(s.batch) * Wide(s.heads) * Wide(s.seqlen_q) * 4 : 0;
  return 2 * q + 2 * 2 * kv + q * Wide(cdna4::element_bytes(s.out)) + lse;
}

cdna4::TensorStrides strides(bool bhsd, int64_t seqlen, int64_t heads, int64_t dim) {
  return bhsd ? cdna4::TensorStrides::bhsd(seqlen, heads, dim) : cdna4::TensorStrides::bshd(seqlen, heads, dim);
}

// Refuses the shape in validate()'s words before any data is generated or read:
// inputs of one repeated row (strides 0, a D-element buffer) stand in for Q, K, V.
void validate_shape(const cdna4::AttentionShape& shape, const cdna4::TensorStrides& o_strides) {
  const std::vector<uint8_t> row(size_t(std::clamp<int64_t>(shape.dim, 0, 128)) * 2);
  cdna4::AttentionProblem p;
  p.shape = shape;
  p.q = p.k = p.v = row;
  p.q_strides = p.k_strides = p.v_strides = cdna4::TensorStrides{};
  p.o_strides = o_strides;
  cdna4::validate(p);
}

// The buffers an AttentionProblem of the command line points into.
struct Inputs {
  std::vector<uint8_t> q, k, v;
};

cdna4::AttentionProblem problem_of(const Options& o, const cdna4::AttentionShape& s, Inputs& in) {
  using cdna4::DataType;
  const int64_t q_elements = s.batch * s.seqlen_q * s.heads * s.dim, kv_elements = s.batch * s.seqlen_k * s.heads_kv * s.dim;
  const auto tensor = [&](const std::string& file, int64_t elements, uint64_t seed, const char* what) {
    return file.empty() ? cdna4::tools::generate_elements(DataType::bf16, elements, seed, false)
                        : cdna4::tools::read_elements(file, DataType::bf16, elements, what);
  };
  in.q = tensor(o.q, q_elements, o.run.seed, "Q");
  in.k = tensor(o.k, kv_elements, o.run.seed + 1, "K");
  in.v = tensor(o.v, kv_elements, o.run.seed + 2, "V");
  cdna4::AttentionProblem p;
  p.shape = s;
  p.q = in.q, p.k = in.k, p.v = in.v;
  p.q_strides = p.o_strides = strides(o.bhsd, s.seqlen_q, s.heads, s.dim);
  p.k_strides = p.v_strides = strides(o.bhsd, s.seqlen_k, s.heads_kv, s.dim);
  return p;
}

double tflops(const cdna4::ModelReport& model, const cdna4::AttentionShape& shape) {
  return cdna4::tools::modeled_tflops(model, cdna4::attention_flops(shape));
}

nlohmann::json check_json(const cdna4::tools::AttentionCheck& c) {
  return {{"bit_exact", c.bit_exact()},
          {"differing_elements", c.o_differ},
          {"differing_lse", c.lse_differ},
          {"first_difference", c.first_difference},
          {"max_error_o", c.f64.o},
          {"tolerance_o", c.f64.o_tolerance},
          {"tolerance_share_o", c.f64.o_share},
          {"outside_tolerance_o", c.f64.o_outside},
          {"max_error_lse", c.f64.lse},
          {"tolerance_lse", c.f64.lse_tolerance},
          {"tolerance_share_lse", c.f64.lse_share},
          {"outside_tolerance_lse", c.f64.lse_outside},
          {"within_tolerance", c.f64.within()}};
}

void print_check(const cdna4::tools::AttentionCheck& c) {
  fmt::print("bit-exact: {} ({} of {} O elements{} differ)\n", c.bit_exact() ? "yes" : "no", c.o_differ, c.o_elements,
             c.lse_rows ? fmt::format(", {} of {} LSE values", c.lse_differ, c.lse_rows) : "");
  if (!c.bit_exact()) fmt::print("first difference: {}\n", c.first_difference);
  fmt::print("float64: max |O - O64| = {:.3g} (its tolerance {:.3g}; at most {:.3g} of the tolerance, {} outside)",
             c.f64.o, c.f64.o_tolerance, c.f64.o_share, c.f64.o_outside);
  if (c.lse_rows)
    fmt::print("; max |LSE - LSE64| = {:.3g} (its tolerance {:.3g}; at most {:.3g} of the tolerance, {} outside)",
               c.f64.lse, c.f64.lse_tolerance, c.f64.lse_share, c.f64.lse_outside);
  fmt::print("; {}\n", c.f64.within() ? "within tolerance" : "OUTSIDE tolerance");
}

// What the run did, as JSON (--json) or lines of text.
void print_report(const Options& o, const cdna4::AttentionSchedule& schedule, const cdna4::AttentionShape& s,
                  const std::string& device, size_t max_races, const cdna4::AttentionRun& run, double wall,
                  const std::optional<cdna4::tools::AttentionCheck>& check) {
  if (o.run.json) {
    nlohmann::json j = {
        {"schedule", schedule.name},
        {"shape", {{"batch", s.batch}, {"seqlen_q", s.seqlen_q}, {"seqlen_k", s.seqlen_k}, {"heads", s.heads},
                   {"heads_kv", s.heads_kv}, {"dim", s.dim}}},
        {"causal", s.causal},
        {"scale", s.softmax_scale()},
        {"out_type", cdna4::to_string(s.out)},
        {"lse", s.lse},
        {"layout", o.bhsd ? "bhsd" : "bshd"},
        {"device", device},
        {"flops", cdna4::attention_flops(s)},
    };
    j.update(cdna4::tools::run_json(run.compile, run.launch, wall));
    if (check) j["check"] = check_json(*check);
    if (run.launch.model) {
      j["model"] = cdna4::tools::model_json(*run.launch.model);
      j["model"]["tflops"] = tflops(*run.launch.model, s);
    }
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("{}: {}{} scale {:g} {}{} on {}\n", schedule.name, cdna4::tools::attention_shape_text(s),
             s.causal ? " causal" : "", s.softmax_scale(), cdna4::to_string(s.out), s.lse ? " + LSE" : "", device);
  fmt::print("compile {:.2f} ms{}; kernel {:.3f} s", run.compile.total_ms, run.compile.cached ? " (cached)" : "",
             run.launch.seconds);
  if (run.launch.instructions) fmt::print(" ({} wave-instructions)", run.launch.instructions);
  fmt::print("; total {:.3f} s\n", wall);
  if (!o.o_out.empty()) fmt::print("wrote O to {} ({} bytes)\n", o.o_out, run.out.o.size());
  if (!o.lse_out.empty()) fmt::print("wrote LSE to {} ({} bytes)\n", o.lse_out, run.out.lse.size());
  if (check) print_check(*check);
  if (run.launch.model) {
    fmt::print("modeled: {:.1f} TFLOP/s ({:.4g} FLOPs: 4 B H NQ NK D{})\n", tflops(*run.launch.model, s),
               cdna4::attention_flops(s), s.causal ? ", half of that causal" : "");
    cdna4::tools::print_model_lines(*run.launch.model);
  }
  cdna4::tools::print_race_lines(run.launch, max_races);
}

std::string_view bytes_of(const std::vector<uint8_t>& v) {
  return std::string_view(reinterpret_cast<const char*>(v.data()), v.size());
}

int run(const Options& o) {
  cdna4::AttentionShape shape = cdna4::tools::parse_attention_shape<UsageError>(o.shape, "--shape");
  shape.causal = o.causal;
  shape.scale = o.scale;
  shape.out = o.out;
  shape.lse = o.lse;
  const cdna4::AttentionSchedule schedule = cdna4::load_attention_schedule(o.schedule);
  validate_shape(shape, strides(o.bhsd, shape.seqlen_q, shape.heads, shape.dim));
  if (shape.dim != schedule.dim)
    throw cdna4::Error(fmt::format("schedule {} is for D = {}; --shape {} has D = {} (the shipped "
                                   "schedules/attention/attn_fwd_d{}.json is for that)",
                                   schedule.name, schedule.dim, o.shape, shape.dim, shape.dim));
  if (const long double bytes = data_bytes(shape); bytes > (long double)(o.max_bytes))
    throw UsageError(fmt::format("{} needs {:.0f} bytes of Q, K, V, O{} on the host, more than the limit of {} bytes "
                                 "(--max-bytes)",
                                 o.shape, bytes, shape.lse ? ", LSE" : "", o.max_bytes));
  const cdna4::AttentionKernel kernel = cdna4::compile_attention(schedule, shape);
  Inputs inputs;
  const cdna4::AttentionProblem problem = problem_of(o, shape, inputs);

  const cdna4::EmulatorConfig config = cdna4::tools::emulator_config(o.run);
  cdna4::Device device = cdna4::Device::open(o.run.device, config);
  cdna4::LaunchOptions launch = cdna4::tools::launch_options(o.run);
  cdna4::tools::LaunchProgressBar progress("cdna4-attn", o.run.quiet || o.run.json);
  progress.attach(launch);
  const auto t0 = std::chrono::steady_clock::now();
  const std::optional<cdna4::AttentionRun> finished =
      progress.run([&] { return cdna4::run_attention(device, kernel, problem, launch); });
  if (!finished) return cdna4::tools::kExitInterrupted;
  const cdna4::AttentionRun& run = *finished;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::optional<cdna4::tools::AttentionCheck> check;
  if (o.check)
    check = cdna4::tools::check_attention(problem, run.out,
                                          cdna4::reference(problem, cdna4::blocks(kernel.schedule), o.run.mfma_policy),
                                          cdna4::reference_f64(problem));
  cdna4::tools::OutputFiles outputs;
  if (!o.o_out.empty()) outputs.stage(o.o_out, bytes_of(run.out.o));
  if (!o.lse_out.empty()) outputs.stage(o.lse_out, bytes_of(run.out.lse));
  cdna4::tools::stage_model_outputs(outputs, o.run, run.launch, fmt::format("{} {}", schedule.name, o.shape));
  outputs.commit();
  const bool failed = !run.launch.races.empty() || (check && !(check->bit_exact() && check->f64.within()));
  print_report(o, schedule, shape, device.name(), config.max_races, run, wall, check);
  return failed ? cdna4::tools::kExitCheckFailed : cdna4::tools::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return cdna4::tools::guarded_main("cdna4-attn", [&] {
    cdna4::tools::install_interrupt_handler();
    return run(parse(argc, argv));
  });
}
