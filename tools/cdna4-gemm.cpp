// cdna4-gemm: compile a schedule for a shape and run one GEMM on the emulator or
// a gfx950, optionally checking every output element against the CPU reference.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <span>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "cdna4/gemm.hpp"
#include "cdna4/reference.hpp"
#include "cli_conventions.hpp"
#include "cli_names.hpp"
#include "common/activations.hpp"
#include "cli_numbers.hpp"
#include "element_data.hpp"
#include "launch_progress.hpp"
#include "model_output.hpp"
#include "output_file.hpp"
#include "report_output.hpp"
#include "run_flags.hpp"
#include "timeline_svg.hpp"

namespace {

using cdna4::tools::generate_elements;
using cdna4::tools::read_elements;
using cdna4::tools::UsageError;

const std::string kUsage =
    "usage: cdna4-gemm SCHEDULE.json --shape MxNxK [options]\n"
    "\n"
    "Compiles the schedule for the shape and runs C = A * B once.\n"
    "A and B are stored as --layout says (default nn: A M x K, B K x N, row-major),\n"
    "and the kernel reads them so; in the schedule's types.a / types.b,\n"
    "elements packed densely (16-bit little-endian; fp8 / bf8 one per byte; fp6 / bf6\n"
    "four in three bytes and fp4 two per byte, as a little-endian bit string, first\n"
    "element lowest); C is M x N row-major raw fp32, bf16 or f16.\n"
    "Without input files A and B are generated.\n"
    "\n"
    "options:\n"
    "  --out-type f32|bf16|f16   C element type (default: the schedule's types.c)\n"
    "  --device emulator|model|hsa\n"
    "                            where to run (default emulator); model runs on the emulator\n"
    "                            and prints the modeled gfx950 time, TFLOP/s, MFMA\n"
    "                            utilisation and where the waves' time goes\n"
    "  --layout nn|nt|tn|tt      how --a and --b are stored: first letter A (n: M x K,\n"
    "                            t: K x M), second B (n: K x N, t: N x K), row-major\n"
    "  --a FILE --b FILE         input matrices (both or neither)\n"
    "  --data random|integer     generated data: normal values rounded into the type, or\n"
    "                            small integers whose sums are exact in fp32 (default random)\n"
    "  --a-scale FILE --b-scale FILE\n"
    "                            E8M0 scales of an MX-scaled schedule (v_mfma_scale_*): one\n"
    "                            byte per 32 elements of K, A's M x K/32 and B's K/32 x N,\n"
    "                            row-major (generated without files: 1.0 for --data integer,\n"
    "                            2^-3 .. 2^3 otherwise)\n"
    "  -o, --c-out FILE          write C (D): the main output\n"
    "  --alpha F --beta F        fused epilogue D = act(alpha * A x B + beta * C + bias), F fp32\n"
    "                            (defaults: alpha 1; beta 1 when there is a C input)\n"
    "  --c-in FILE               C, M x N row-major in --c-type (default: the output type);\n"
    "                            generated like A and B when the schedule's epilogue reads C\n"
    "  --c-type f32|bf16|f16     C's element type\n"
    "  --bias FILE --bias-dim m|n  f32 bias per row (M elements) or per column (N)\n"
    "  --activation {}  after the bias (docs/codegen.md)\n"
    "                            Any of these flags overrides the schedule's \"epilogue\".\n"
    "  --batch B                 B GEMMs in one launch (the grid's z): --a, --b, the scale\n"
    "                            files and --c-out hold B matrices one after another\n"
    "  --stride-a N --stride-b N --stride-c N\n"
    "                            with --batch: elements from one matrix to the next in --a,\n"
    "                            --b and --c-out / --c-in (default: packed); the kernel reads\n"
    "                            the files as they are when K is a multiple of 16 bytes\n"
    "                            (else a copy pads it)\n"
    "  --max-bytes SIZE          refuse a run whose A, B, scales, C input, bias and C output\n"
    "                            over the batch hold more than SIZE bytes (suffix K, M or G;\n"
    "                            default 1G), checked before any data is generated or read\n"
    "  --seed S                  data and memory-completion seed (default 1)\n"
    + std::string(cdna4::tools::kEmulatorFlagsHelp) +
    "  --model-only              model device: run only the workgroups the model times\n"
    "                            (seconds for large shapes; C is left incomplete)\n"
    + std::string(cdna4::tools::kModelOutputFlagsHelp) +
    "  --check                   compare every element with the CPU reference (one fp32\n"
    "                            FMA chain per element in k order, the emulator's MFMA\n"
    "                            policy) and print bit-exact: yes|no\n"
    "  --json                    print the compile and launch stats, race reports and\n"
    "                            (with --check) differing_elements as JSON instead\n"
    "  --quiet                   no progress bar (drawn on stderr only when it is a terminal)\n"
    "  --version                 print the version\n"
    "  -h, --help                this text\n"
    "\n"
    "Outputs (-o, --trace, --timeline) must name different files, none of them an input;\n"
    "each is written whole or not at all (through a temporary renamed into place once\n"
    "every output is written; a device or pipe such as /dev/stdout is written directly).\n"
    "Race reports (emulator) print one line each, as cdna4-run does.\n"
    "Exit status: 0 success, 1 error, 2 bad usage, 3 --check found differences or races were reported,\n"
    "130 stopped by Ctrl-C (nothing written).\n";

constexpr uint64_t kDefaultMaxBytes = uint64_t(1) << 30;

struct Options {
  std::string schedule, shape, a, b, a_scale, b_scale, c_out, data = "random";
  std::optional<cdna4::OutType> out_type;  // default: the schedule's types.c
  cdna4::Layout layout = cdna4::Layout::nn;
  uint64_t stride_a = 0, stride_b = 0, stride_c = 0;
  uint64_t batch = 1;
  uint64_t max_bytes = kDefaultMaxBytes;
  std::optional<float> alpha, beta;
  std::string c_in, bias;
  std::optional<cdna4::Activation> activation;
  std::optional<cdna4::OutType> c_type;
  std::optional<cdna4::BiasDim> bias_dim;
  bool check = false, model_only = false;
  cdna4::tools::RunFlags run;  // device, emulator, limits, model outputs, printing
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "-h" || arg == "--help") { std::cout << fmt::format(fmt::runtime(kUsage), cdna4::activations::names("|")); std::exit(0); }
    else if (arg == "--version") { cdna4::tools::print_version("cdna4-gemm"); std::exit(0); }
    else if (arg == "-o") o.c_out = cdna4::tools::output_path<UsageError>(value(), arg);
    else if (arg == "--shape") o.shape = value();
    else if (arg == "--out-type") o.out_type = cdna4::tools::parse_named<cdna4::OutType, UsageError>(value(), arg);
    else if (arg == "--a") o.a = value();
    else if (arg == "--b") o.b = value();
    else if (arg == "--a-scale") o.a_scale = value();
    else if (arg == "--b-scale") o.b_scale = value();
    else if (arg == "--c-out") o.c_out = cdna4::tools::output_path<UsageError>(value(), arg);
    else if (arg == "--data") o.data = value();
    else if (arg == "--max-bytes") o.max_bytes = cdna4::tools::parse_size<UsageError>(value(), arg);
    else if (arg == "--layout") o.layout = cdna4::tools::parse_named<cdna4::Layout, UsageError>(value(), arg);
    else if (arg == "--stride-a") o.stride_a = cdna4::tools::parse_unsigned<UsageError>(value(), arg, uint64_t(1) << 40);
    else if (arg == "--stride-b") o.stride_b = cdna4::tools::parse_unsigned<UsageError>(value(), arg, uint64_t(1) << 40);
    else if (arg == "--stride-c") o.stride_c = cdna4::tools::parse_unsigned<UsageError>(value(), arg, uint64_t(1) << 40);
    else if (arg == "--batch") o.batch = cdna4::tools::parse_unsigned<UsageError>(value(), arg, UINT32_MAX);
    else if (arg == "--alpha") o.alpha = cdna4::tools::parse_float<UsageError>(value(), arg);
    else if (arg == "--beta") o.beta = cdna4::tools::parse_float<UsageError>(value(), arg);
    else if (arg == "--c-in") o.c_in = value();
    else if (arg == "--c-type") o.c_type = cdna4::tools::parse_named<cdna4::OutType, UsageError>(value(), arg);
    else if (arg == "--bias") o.bias = value();
    else if (arg == "--bias-dim")
      o.bias_dim = cdna4::tools::parse_named<cdna4::BiasDim, UsageError>(
          value(), arg, [](const auto& row) { return row.value != cdna4::BiasDim::none; });
    else if (arg == "--activation") o.activation = cdna4::tools::parse_named<cdna4::Activation, UsageError>(value(), "--activation");
    else if (arg == "--check") o.check = true;
    else if (arg == "--model-only") o.model_only = true;
    else if (cdna4::tools::parse_run_flag<UsageError>(arg, value, o.run)) continue;
    else if (!arg.empty() && arg[0] == '-') throw UsageError("unknown option " + arg + " (see --help)");
    else if (o.schedule.empty()) o.schedule = arg;
    else throw UsageError("more than one schedule: " + o.schedule + " and " + arg);
  }
  if (o.schedule.empty()) throw UsageError("no schedule given (see --help)");
  if (o.shape.empty()) throw UsageError("--shape MxNxK is required");
  if (o.batch < 1) throw UsageError("--batch must be at least 1");
  if ((o.stride_a || o.stride_b || o.stride_c) && o.batch == 1) throw UsageError("--stride-a/-b/-c need --batch B > 1");
  if (o.bias.empty() != !o.bias_dim) throw UsageError("give --bias with --bias-dim m|n");
  if (o.beta && o.c_in.empty()) throw UsageError("--beta scales C: give --c-in FILE");
  if (o.c_type && o.c_in.empty()) throw UsageError("--c-type names the type of --c-in FILE");
  if (o.a.empty() != o.b.empty()) throw UsageError("give both --a and --b, or neither");
  if (o.data != "random" && o.data != "integer") throw UsageError("--data takes random or integer");
  if (o.model_only && o.run.device != "model") throw UsageError("--model-only needs --device model");
  cdna4::tools::check_run_flags<UsageError>(o.run);
  if (o.model_only && (o.check || !o.c_out.empty()))
    throw UsageError("--model-only leaves C incomplete: it cannot go with --check or --c-out");
  cdna4::tools::check_outputs<UsageError>(
      {{o.schedule, "the schedule"}, {o.a, "--a"}, {o.b, "--b"}, {o.a_scale, "--a-scale"}, {o.b_scale, "--b-scale"},
       {o.c_in, "--c-in"}, {o.bias, "--bias"}},
      {{o.c_out, "-o"}, {o.run.trace, "--trace"}, {o.run.timeline, "--timeline"}});
  return o;
}

std::vector<uint8_t> read_scales(const std::string& path, int64_t count, const char* what) {
  const std::vector<char> data = cdna4::tools::read_file_of_size(
      path, uint64_t(count), what, fmt::format("{} need {} E8M0 bytes", what, count));
  return std::vector<uint8_t>(data.begin(), data.end());
}

// 127 (1.0) for integer data, whose sums stay exact; else 124 .. 130 (2^-3 .. 2^3).
std::vector<uint8_t> generate_scales(int64_t count, uint64_t seed, bool integer) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> exponent(124, 130);
  std::vector<uint8_t> out(static_cast<size_t>(count), 127);
  if (!integer)
    for (auto& x : out) x = uint8_t(exponent(rng));
  return out;
}

// The buffers a GemmProblem of the command line points into.
struct Inputs {
  std::vector<uint8_t> a, b, scale_a, scale_b, c, bias;
};

double modeled_tflops(const cdna4::ModelReport& model, int64_t m, int64_t n, int64_t k) {
  return cdna4::tools::modeled_tflops(model, 2.0 * double(m) * double(n) * double(k));
}

// The host bytes of the run's data: A, B, the scales, C input and bias, and the
// C output, each over the batch (stride apart, the last matrix whole). Computed in
// long double, so no product of the flags' numbers wraps around (exact below 2^64).
long double data_bytes(const cdna4::Schedule& schedule, const cdna4::GemmShape& shape, cdna4::OutType out) {
  using Wide = long double;
  const Wide m = Wide(shape.m), n = Wide(shape.n), k = Wide(shape.k), batch = Wide(shape.batch);
  const auto bytes = [&](cdna4::DataType type, Wide matrix, Wide stride) {
    return std::ceil(((batch - 1) * stride + matrix) * Wide(cdna4::element_bits(type)) / 8);
  };
  // The command line sets no leading dimensions: a packed matrix is dense in any layout.
  const auto stride = [](int64_t given, Wide packed) { return given ? Wide(given) : packed; };
  Wide total = bytes(schedule.type_a, m * k, stride(shape.stride_a, m * k)) +
               bytes(schedule.type_b, k * n, stride(shape.stride_b, k * n));
  if (schedule.scaled) total += (m + n) * std::floor(k / 32) * batch;
  const Wide c_elements = (batch - 1) * stride(shape.stride_c, m * n) + m * n;
  total += c_elements * Wide(cdna4::element_bytes(out));
  if (const auto& e = schedule.epilogue) {
    if (e->c) total += std::ceil(c_elements * Wide(cdna4::element_bits(*e->c)) / 8);
    if (e->bias != cdna4::BiasDim::none) total += (e->bias == cdna4::BiasDim::m ? m : n) * 4;
  }
  return total;
}

// The problem the flags describe, its data generated or read from the files.
cdna4::GemmProblem problem_of(const Options& o, const cdna4::Schedule& schedule, cdna4::GemmShape shape,
                              Inputs& in) {
  using cdna4::Operand;
  const int64_t m = shape.m, n = shape.n, k = shape.k;
  cdna4::GemmProblem p;
  p.layout = o.layout;
  // Each input: `batch` matrices, stride apart (default: packed), the last one whole.
  const auto elements = [&](int64_t matrix, int64_t stride) { return (shape.batch - 1) * stride + matrix; };
  const int64_t a_elements = elements(m * k, shape.stride(p.layout, Operand::a));
  const int64_t b_elements = elements(k * n, shape.stride(p.layout, Operand::b));
  const bool integer = o.data == "integer";
  in.a = o.a.empty() ? generate_elements(schedule.type_a, a_elements, o.run.seed, integer)
                     : read_elements(o.a, schedule.type_a, a_elements, "A");
  in.b = o.b.empty() ? generate_elements(schedule.type_b, b_elements, o.run.seed + 1, integer)
                     : read_elements(o.b, schedule.type_b, b_elements, "B");
  if (schedule.scaled) {
    const int64_t count_a = m * std::floor(k / 32) * shape.batch, count_b = std::floor(k / 32) * n * shape.batch;
    in.scale_a = o.a_scale.empty() ? generate_scales(count_a, o.run.seed + 2, integer) : read_scales(o.a_scale, count_a, "A's scales");
    in.scale_b = o.b_scale.empty() ? generate_scales(count_b, o.run.seed + 3, integer) : read_scales(o.b_scale, count_b, "B's scales");
  }
  if (const auto& e = schedule.epilogue) {
    p.alpha = o.alpha.value_or(1.0f);
    p.beta = o.beta.value_or(e->c ? 1.0f : 0.0f);
    const int64_t c_elements = elements(m * n, shape.c_stride());
    if (e->c)
      in.c = o.c_in.empty() ? generate_elements(*e->c, c_elements, o.run.seed + 4, integer)
                            : read_elements(o.c_in, *e->c, c_elements, "C");
    const int64_t bias_len = e->bias == cdna4::BiasDim::m ? m : e->bias == cdna4::BiasDim::n ? n : 0;
    if (bias_len)
      in.bias = o.bias.empty() ? generate_elements(e->bias_type, bias_len, o.run.seed + 5, integer)
                               : read_elements(o.bias, e->bias_type, bias_len, "the bias");
  }
  p.shape = shape;
  p.a = in.a;
  p.b = in.b;
  p.scale_a = in.scale_a;
  p.scale_b = in.scale_b;
  p.c = in.c;
  p.bias = in.bias;
  return p;
}

// The flags' epilogue over the schedule's; C's type defaults to the output type.
void apply_epilogue_flags(const Options& o, cdna4::OutType out, cdna4::Schedule& schedule) {
  if (!o.alpha && !o.beta && o.c_in.empty() && o.bias.empty() && !o.activation) return;
  cdna4::Epilogue e = schedule.epilogue.value_or(cdna4::Epilogue{});
  if (!o.c_in.empty()) e.c = cdna4::data_type(o.c_type.value_or(out));
  if (!o.bias.empty()) {
    e.bias = *o.bias_dim;
    e.bias_type = cdna4::DataType::f32;
  }
  if (o.activation) e.activation = *o.activation;
  schedule.epilogue = e;
}

// Compiles (cached) the kernel run_gemm will use for an unstrided problem, or
// the strided one as given, so a shape past the kernel's limits is refused
// before any matrix is generated or read.
void precheck(const cdna4::Schedule& schedule, const cdna4::GemmShape& shape, cdna4::Layout layout) {
  const bool strided = shape.stride_a || shape.stride_b || shape.stride_c;
  cdna4::GemmShape padded = shape;
  const int granule = cdna4::k_granule(schedule);
  if (shape.k > INT64_MAX - granule || (strided && shape.k % granule != 0)) return;  // staging copies these
  padded.k = (shape.k + granule - 1) / granule * granule;
  cdna4::CompileOptions options;
  // Unstrided, staging pads rows as the kernel needs; the same limits apply in "nt".
  options.layout = strided ? layout : cdna4::Layout::nt;
  cdna4::compile(schedule, padded, options);
}

// What the run did, as JSON (--json) or lines of text.
void print_report(const Options& o, const cdna4::Schedule& schedule, const cdna4::GemmShape& shape, cdna4::OutType out,
                  const std::string& device, size_t max_races, const cdna4::GemmRun& run, double wall,
                  std::optional<size_t> diff) {
  const int64_t m = shape.m, n = shape.n, k = shape.k, batch = shape.batch;
  if (o.run.json) {
    nlohmann::json j = {
        {"schedule", schedule.name},
        {"shape", {{"m", m}, {"n", n}, {"k", k}, {"batch", batch}}},
        {"out_type", cdna4::to_string(out)},
        {"device", device},
    };
    j.update(cdna4::tools::run_json(run.compile, run.launch, wall));
    if (diff) j["differing_elements"] = *diff;
    if (run.launch.model) {
      j["model"] = cdna4::tools::model_json(*run.launch.model);
      j["model"]["tflops"] = modeled_tflops(*run.launch.model, m * batch, n, k);
    }
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("{}: {}x{}x{}{} {} on {}\n", schedule.name, m, n, k, batch > 1 ? fmt::format(" batch {}", batch) : "",
             cdna4::to_string(out), device);
  fmt::print("compile {:.2f} ms{}; kernel {:.3f} s", run.compile.total_ms, run.compile.cached ? " (cached)" : "",
             run.launch.seconds);
  if (run.launch.instructions)
    fmt::print(" ({} wave-instructions, {:.1f} M MFMA MAC/s emulated)", run.launch.instructions,
               run.launch.seconds > 0 ? double(run.launch.mfma_macs) / run.launch.seconds / 1e6 : 0.0);
  fmt::print("; total {:.3f} s\n", wall);
  if (!o.c_out.empty()) fmt::print("wrote C to {} ({} bytes)\n", o.c_out, run.c.size());
  if (diff) fmt::print("bit-exact: {} ({} of {} elements differ)\n", *diff == 0 ? "yes" : "no", *diff, m * n * batch);
  if (run.launch.model) {
    fmt::print("modeled: {:.1f} TFLOP/s\n", modeled_tflops(*run.launch.model, m * batch, n, k));
    cdna4::tools::print_model_lines(*run.launch.model);
  }
  cdna4::tools::print_race_lines(run.launch, max_races);
}

}  // namespace

int main(int argc, char** argv) {
  return cdna4::tools::guarded_main("cdna4-gemm", [&] {
    cdna4::tools::install_interrupt_handler();
    const Options o = parse(argc, argv);
    cdna4::GemmShape shape = cdna4::parse_shape(o.shape);
    const int64_t m = shape.m, n = shape.n, k = shape.k;
    if (m < 1 || n < 1 || k < 1) throw cdna4::Error("M, N and K must be at least 1");
    cdna4::Schedule schedule = cdna4::load_schedule(o.schedule);
    shape.out = o.out_type;
    const cdna4::OutType out = cdna4::output_type(schedule, shape.out);
    apply_epilogue_flags(o, out, schedule);
    shape.batch = int64_t(o.batch);
    shape.stride_a = int64_t(o.stride_a);
    shape.stride_b = int64_t(o.stride_b);
    shape.stride_c = int64_t(o.stride_c);
    precheck(schedule, shape, o.layout);
    if (const long double bytes = data_bytes(schedule, shape, out); bytes > (long double)(o.max_bytes))
      throw UsageError(fmt::format("{}x{}x{}{} needs {:.0f} bytes of A, B{}, C on the host, more than the limit of {} "
                                   "bytes (--max-bytes)",
                                   m, n, k, shape.batch > 1 ? fmt::format(" batch {}", shape.batch) : "",
                                   bytes, schedule.scaled ? ", scales" : "", o.max_bytes));
    if (!schedule.scaled && (!o.a_scale.empty() || !o.b_scale.empty()))
      throw cdna4::Error(fmt::format("schedule {} has no scaled MFMA (v_mfma_scale_*): --a-scale and --b-scale "
                                     "need one", schedule.name));
    if (schedule.scaled && o.a_scale.empty() != o.b_scale.empty())
      throw cdna4::Error("give both --a-scale and --b-scale, or neither");
    if (schedule.scaled && k % 32 != 0)
      throw cdna4::Error(fmt::format("K = {} is not a multiple of 32: schedule {} takes one E8M0 scale per 32 "
                                     "elements of K", k, schedule.name));
    Inputs inputs;
    const cdna4::GemmProblem problem = problem_of(o, schedule, shape, inputs);

    cdna4::EmulatorConfig config = cdna4::tools::emulator_config(o.run);
    config.model_only = o.model_only;
    cdna4::Device device = cdna4::Device::open(o.run.device, config);
    cdna4::LaunchOptions launch = cdna4::tools::launch_options(o.run);
    cdna4::tools::LaunchProgressBar progress("cdna4-gemm", o.run.quiet || o.run.json);
    progress.attach(launch);
    const auto t0 = std::chrono::steady_clock::now();
    const std::optional<cdna4::GemmRun> finished =
        progress.run([&] { return cdna4::run_gemm(device, schedule, problem, {}, launch); });
    if (!finished) return cdna4::tools::kExitInterrupted;
    const cdna4::GemmRun& run = *finished;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::optional<size_t> diff;
    if (o.check)
      diff = cdna4::differing_elements(run.c, cdna4::reference(schedule, problem, o.run.mfma_policy),
                                       size_t(cdna4::element_bytes(out)));
    cdna4::tools::OutputFiles outputs;
    if (!o.c_out.empty())
      outputs.stage(o.c_out, std::string_view(reinterpret_cast<const char*>(run.c.data()), run.c.size()));
    cdna4::tools::stage_model_outputs(outputs, o.run, run.launch, fmt::format("{} {}x{}x{}", schedule.name, m, n, k));
    outputs.commit();
    const int status = !run.launch.races.empty() || diff.value_or(0) != 0 ? cdna4::tools::kExitCheckFailed
                                                                           : cdna4::tools::kExitOk;
    print_report(o, schedule, problem.shape, out, device.name(), config.max_races, run, wall, diff);
    return status;
  });
}
