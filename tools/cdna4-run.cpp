// cdna4-run: launch any kernel of an hsaco on the emulator or a gfx950, with
// buffers from files or generated, scalar arguments, and outputs to files.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cdna4/runtime.hpp"
#include "cli_conventions.hpp"
#include "cli_names.hpp"
#include "cli_numbers.hpp"
#include "input_file.hpp"
#include "launch_progress.hpp"
#include "raw_kernarg.hpp"
#include "report_output.hpp"
#include "model_output.hpp"
#include "output_file.hpp"
#include "timeline_svg.hpp"

namespace {

using cdna4::Error;

constexpr const char* kUsage = R"(usage: cdna4-run KERNEL.hsaco [options]

Runs one kernel of a code object and writes its output buffers to files.

  --kernel NAME           kernel to run (default: the only one in the file)
  --device emulator|model|hsa
                          where to run (default: emulator); model runs on the
                          emulator and prints the modeled gfx950 time
                          ("modeled cycles: N", "modeled time: T us")
  --trace FILE.json       model device: write the modeled timeline of one CU in
                          the Chrome trace-event format (Perfetto, chrome://tracing)
  --timeline FILE.svg     model device: draw two steady-state loop trips of that
                          timeline, a row per wave grouped by SIMD
  --max-trace-bytes SIZE  model device: host bytes the recorded instruction traces and
                          the timeline may hold (suffix K, M or G; default 2G; 0: no
                          limit); past it the run stops with an error
  --model-only            model device: run only the workgroups the model times
                          (its probes), not the whole grid: the modeled time in
                          seconds at any size; outputs stay incomplete (no --out)
  --grid X[,Y,Z]          grid size in workgroups
  --global X[,Y,Z]        grid size in work-items instead (may end in a partial workgroup)
  --block X[,Y,Z]         workgroup size in work-items (required)
  --buf ARG=FILE          buffer argument filled with FILE's bytes
  --buf ARG=SIZE          buffer argument of SIZE bytes (suffix K, M or G), zero-filled;
                          a buffer (SIZE or FILE) holds at most 4G bytes
  --buf ARG=null          a null pointer
  --fill ARG=random:SEED  fill the buffer with fp32 values uniform in [-1, 1)
  --fill ARG=random-bf16:SEED   the same as bf16
  --fill ARG=zero         fill the buffer with zeros
  --arg ARG=VALUE         by_value argument: an integer (decimal or 0x hex), or a
                          float when the metadata's .type_name says it is one;
                          its size comes from the metadata
  --arg ARG=f32:VALUE     a float for an argument whose type the metadata does not
  --arg ARG=f64:VALUE     name (clang's HIP code objects, cdna4's alpha and beta)
  --arg ARG=@FILE         by_value argument (e.g. a struct) from FILE's bytes, or
  --arg ARG=hex:0011..    from hex digits; the size must match the metadata
  --out ARG=FILE          write the buffer to FILE after the run

Raw kernarg (kernels without argument metadata, or taking one opaque block):
  --kernarg FILE          the explicit kernarg bytes from FILE
  --kernarg-size N        or N zero bytes (the block holds at most 4096 bytes)
  --buf NAME@OFFSET=FILE|SIZE|null   a buffer whose address is written at byte
                          OFFSET of the block; --fill NAME=... and --out NAME=FILE name it
  --arg TYPE@OFFSET=VALUE write VALUE at byte OFFSET as TYPE: u8 u16 u32 u64 i8 i16
                          i32 i64 f32 f64
  Hidden arguments described by the metadata are laid out after the block.

  --dynamic-lds BYTES     LDS requested at launch on top of the kernel's fixed size
  --seed S                emulator: seed of the random memory completion delays
  --instant               emulator: memory operations complete at issue (fast, finds no races)
  --timed                 emulator: waves issue in clock order, memory completes after gfx950's
                          latencies (deterministic; for kernels whose results depend on timing)
  --mfma-policy NAME      emulator: how MFMAs add, fp32-fma-chain-k-order (default) or
                          cdna3-fused-groups (docs/emulator.md)
  --max-instructions N    emulator: stop after N wave-instructions (default 2^36; 0: no limit)
  --timeout SECONDS       emulator: stop after SECONDS of wall time (default 600; 0: no limit)
  --max-races N           emulator: keep at most N race/hazard groups (default 16)
  --list                  print the kernels and their arguments, then exit
  --check                 list every instruction reachable from the kernel's entry
                          (all kernels without --kernel) that the emulator cannot
                          execute, with counts, without running; exit 0 when none, 1 otherwise
  --json                  print the launch stats and race reports (or the --check
                          list) as JSON on stdout instead of text
  --quiet                 no progress bar (drawn on stderr only when it is a terminal)
  --version               print the version
  --help                  this text

Files are read only when they are regular files (not a directory, device or
pipe); a code object holds at most 256M bytes. Outputs (--out, --trace, --timeline)
must name different files, none of them an input; each is written whole or not at
all (through a temporary renamed into place once every output is written; a device
or pipe such as /dev/stdout is written directly).
ARG is an argument's metadata name (clang's ".coerce" suffix may be left out)
or its position among the explicit arguments: #0, #1, ...
Reports are grouped by (kind, rule, pc): one line per group, the first occurrence's
facts and the group's count: race kind=K pc=0x.. count=C wg=X,Y,Z wave=W
other_pc=0x.. other_wave=W at=LOCATION missing=WAIT [rule=R needed=N passed=P]
inst='...' other_inst='...'. Occurrences of groups beyond --max-races are counted
on a last line, "races not kept: N occurrences ...".
Exit status: 0 success, 1 error, 2 bad usage, 3 races detected (outputs still written),
130 stopped by Ctrl-C (no outputs written).
)";

using cdna4::tools::UsageError;

// What the tool reads or allocates on the host, refused before reading or allocating.
constexpr uint64_t kMaxCodeObjectBytes = uint64_t(256) << 20;
constexpr uint64_t kMaxBufferBytes = uint64_t(4) << 30;

struct Options {
  std::string hsaco;
  std::string kernel;
  std::string device = "emulator";
  std::optional<cdna4::Dim3> grid, global, block;
  std::map<std::string, std::string> bufs, fills, args, outs;
  uint32_t dynamic_lds = 0;
  std::optional<uint64_t> seed;
  std::optional<uint64_t> max_instructions;
  std::optional<double> timeout;
  std::optional<uint64_t> max_trace_bytes;
  size_t max_races = cdna4::EmulatorConfig{}.max_races;
  bool instant = false;
  bool timed = false;
  bool model_only = false;
  cdna4::MfmaPolicy mfma_policy = cdna4::MfmaPolicy::fp32_fma_chain_k_order;
  std::string trace;
  std::string timeline;
  std::optional<std::string> kernarg_file;
  std::optional<uint64_t> kernarg_size;
  bool list = false;
  bool check = false;
  bool json = false;
  bool quiet = false;
};

// The launch's progress bar and Ctrl-C handling (one launch per run).
std::optional<cdna4::tools::LaunchProgressBar> progress;

uint64_t parse_uint(const std::string& text, const std::string& what) {
  return cdna4::tools::parse_unsigned<UsageError>(text, what);
}

cdna4::Dim3 parse_dim3(const std::string& text, const std::string& what) {
  uint32_t v[3] = {1, 1, 1};
  size_t pos = 0;
  for (int i = 0; i < 3; ++i) {
    size_t comma = text.find(',', pos);
    std::string part = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    uint64_t n = parse_uint(part, what);
    if (n == 0 || n > UINT32_MAX) throw UsageError(fmt::format("{}: '{}' must be 1..{}", what, part, UINT32_MAX));
    v[i] = uint32_t(n);
    if (comma == std::string::npos) return {v[0], v[1], v[2]};
    pos = comma + 1;
  }
  throw UsageError(fmt::format("{}: '{}' has more than 3 dimensions", what, text));
}

uint64_t parse_size(const std::string& text, const std::string& what, uint64_t max = UINT64_MAX) {
  return cdna4::tools::parse_size<UsageError>(text, what, max);
}

// --buf ARG=SIZE rather than ARG=FILE: digits (or 0x hex) with an optional K, M or G.
bool is_size_spec(const std::string& spec) {
  return !spec.empty() && std::isdigit(static_cast<unsigned char>(spec[0])) &&
         spec.find_first_not_of("0123456789xXabcdefABCDEFkKmMgG") == std::string::npos;
}

void split_assignment(const std::string& flag, const std::string& text, std::map<std::string, std::string>& into) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError(fmt::format("{} wants ARG=VALUE, got '{}'", flag, text));
  std::string name = text.substr(0, eq);
  if (!into.emplace(name, text.substr(eq + 1)).second)
    throw UsageError(fmt::format("{} given twice for {}", flag, name));
}

// No output may name an input or another output.
void check_files(const Options& o) {
  std::vector<cdna4::tools::NamedFile> inputs = {{o.hsaco, "the code object"}, {o.kernarg_file.value_or(""), "--kernarg"}};
  for (const auto& [name, spec] : o.bufs)
    if (spec != "null" && !is_size_spec(spec)) inputs.push_back({spec, "--buf " + name});
  for (const auto& [name, value] : o.args)
    if (value.starts_with("@")) inputs.push_back({value.substr(1), "--arg " + name});
  std::vector<cdna4::tools::NamedFile> outputs = {{o.trace, "--trace"}, {o.timeline, "--timeline"}};
  for (const auto& [name, path] : o.outs) outputs.push_back({path, "--out " + name});
  cdna4::tools::check_outputs<UsageError>(inputs, outputs);
}

Options parse_command_line(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--version") {
      cdna4::tools::print_version("cdna4-run");
      std::exit(0);
    }
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (a == "--kernel") o.kernel = value();
    else if (a == "--device") o.device = value();
    else if (a == "--grid") o.grid = parse_dim3(value(), "--grid");
    else if (a == "--global") o.global = parse_dim3(value(), "--global");
    else if (a == "--block") o.block = parse_dim3(value(), "--block");
    else if (a == "--buf") split_assignment(a, value(), o.bufs);
    else if (a == "--fill") split_assignment(a, value(), o.fills);
    else if (a == "--arg") split_assignment(a, value(), o.args);
    else if (a == "--out") split_assignment(a, value(), o.outs);
    else if (a == "--dynamic-lds") o.dynamic_lds = uint32_t(parse_size(value(), "--dynamic-lds", UINT32_MAX));
    else if (a == "--seed") o.seed = parse_uint(value(), "--seed");
    else if (a == "--instant") o.instant = true;
    else if (a == "--timed") o.timed = true;
    else if (a == "--model-only") o.model_only = true;
    else if (a == "--max-races") o.max_races = parse_uint(value(), "--max-races");
    else if (a == "--mfma-policy") o.mfma_policy = cdna4::tools::parse_named<cdna4::MfmaPolicy, UsageError>(value(), a);
    else if (a == "--trace") o.trace = cdna4::tools::output_path<UsageError>(value(), a);
    else if (a == "--timeline") o.timeline = cdna4::tools::output_path<UsageError>(value(), a);
    else if (a == "--max-trace-bytes") o.max_trace_bytes = parse_size(value(), "--max-trace-bytes");
    else if (a == "--max-instructions") o.max_instructions = parse_uint(value(), "--max-instructions");
    else if (a == "--timeout") o.timeout = cdna4::tools::parse_seconds<UsageError>(value(), "--timeout");
    else if (a == "--kernarg") o.kernarg_file = value();
    else if (a == "--kernarg-size") o.kernarg_size = parse_size(value(), "--kernarg-size", cdna4::kMaxKernargSegmentBytes);
    else if (a == "--list") o.list = true;
    else if (a == "--check") o.check = true;
    else if (a == "--json") o.json = true;
    else if (a == "--quiet") o.quiet = true;
    else if (a.starts_with("-")) throw UsageError("unknown option " + a);
    else if (o.hsaco.empty()) o.hsaco = a;
    else throw UsageError("more than one code object given: " + o.hsaco + " and " + a);
  }
  if (o.hsaco.empty()) throw UsageError("no code object given");
  for (const auto& [name, spec] : o.bufs)
    if (is_size_spec(spec)) parse_size(spec, "--buf " + name, kMaxBufferBytes);
  if (o.list || o.check) return o;
  if (o.kernarg_file && o.kernarg_size) throw UsageError("give at most one of --kernarg and --kernarg-size");
  if (!o.block) throw UsageError("--block is required");
  if (!o.trace.empty() && o.device != "model") throw UsageError("--trace needs --device model");
  if (!o.timeline.empty() && o.device != "model") throw UsageError("--timeline needs --device model");
  if (o.max_trace_bytes && o.device != "model") throw UsageError("--max-trace-bytes needs --device model");
  if (o.model_only && o.device != "model") throw UsageError("--model-only needs --device model");
  if ((o.timed || o.instant) && o.device == "hsa")
    throw UsageError("--timed and --instant choose how the emulator runs; --device hsa runs the hardware");
  if (o.model_only && !o.outs.empty())
    throw UsageError("--model-only leaves the outputs incomplete: it cannot go with --out");
  if (o.grid.has_value() == o.global.has_value()) throw UsageError("give exactly one of --grid and --global");
  check_files(o);
  return o;
}

// Explicit metadata args and how the command line names them.
struct ArgSlot {
  const cdna4::KernelArg* arg;
  size_t position;
  bool matches(const std::string& key) const {
    if (key == fmt::format("#{}", position)) return true;
    return !arg->name.empty() && (key == arg->name || key + ".coerce" == arg->name);
  }
  bool is_buffer() const { return arg->value_kind == "global_buffer"; }
};

const ArgSlot& find_slot(const std::vector<ArgSlot>& slots, const std::string& key, const std::string& flag) {
  for (const ArgSlot& s : slots)
    if (s.matches(key)) return s;
  std::string known;
  for (const ArgSlot& s : slots) known += (known.empty() ? "" : ", ") + cdna4::describe_arg(*s.arg, s.position);
  throw UsageError(fmt::format("{} {}: no such argument; the kernel's arguments are: {}", flag, key,
                               known.empty() ? "none" : known));
}

// A regular file of at most `max_bytes`, refused before reading otherwise (a
// directory, a device such as /dev/zero or a FIFO is never opened).
std::vector<uint8_t> read_file(const std::string& path, uint64_t max_bytes, const std::string& what) {
  const uint64_t size = cdna4::tools::regular_file_size(path, what);
  if (size > max_bytes)
    throw Error(fmt::format("{} ({}) has {} bytes, more than the {} this tool reads", path, what, size, max_bytes));
  const std::vector<char> bytes = cdna4::tools::read_whole_file(path, size, what);
  return {bytes.begin(), bytes.end()};
}

std::vector<uint8_t> read_code_object(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::status(path, ec))) throw Error("cannot open code object " + path);
  return read_file(path, kMaxCodeObjectBytes, "code object");
}

// A file that must have exactly `expected_size` bytes (checked before reading).
std::vector<uint8_t> read_file_of_size(const std::string& path, size_t expected_size) {
  const uint64_t size = cdna4::tools::regular_file_size(path, "--arg file");
  if (size != expected_size)
    throw UsageError(fmt::format("{} has {} bytes, {} expected", path, size, expected_size));
  return read_file(path, expected_size, "--arg file");
}

void stage_buffer(cdna4::tools::OutputFiles& outputs, const std::string& path, const cdna4::Buffer& buffer) {
  const std::vector<uint8_t> bytes = buffer.download<uint8_t>();
  outputs.stage(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

void fill(std::vector<uint8_t>& bytes, const std::string& how, const std::string& key) {
  if (how == "zero") return void(std::fill(bytes.begin(), bytes.end(), 0));
  bool bf16 = how.starts_with("random-bf16:");
  if (!bf16 && !how.starts_with("random:"))
    throw UsageError(fmt::format("--fill {}={}: expected zero, random:SEED or random-bf16:SEED", key, how));
  std::mt19937_64 rng(parse_uint(how.substr(how.find(':') + 1), "--fill seed"));
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  size_t width = bf16 ? 2 : 4;
  for (size_t i = 0; i + width <= bytes.size(); i += width) {
    float f = uniform(rng);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if (bf16) bits >>= 16;  // truncation keeps the value in [-1, 1)
    std::memcpy(bytes.data() + i, &bits, width);
  }
}

// What the metadata's .type_name says a by_value argument holds.
enum class ScalarKind { unknown, integer, floating };

ScalarKind scalar_kind(const cdna4::KernelArg& arg) {
  const std::string& t = arg.type_name;
  if (t.empty() || t.find('*') != std::string::npos) return ScalarKind::unknown;
  for (const char* word : {"float", "double", "half", "_Float16", "__fp16", "bfloat"})
    if (t.find(word) != std::string::npos) return ScalarKind::floating;
  for (const char* word : {"int", "long", "short", "char", "size_t", "unsigned", "bool"})
    if (t.find(word) != std::string::npos) return ScalarKind::integer;
  return ScalarKind::unknown;
}

std::vector<uint8_t> float_bytes(const std::string& number, size_t size, const std::string& where) {
  char* end = nullptr;
  const double d = std::strtod(number.c_str(), &end);
  if (number.empty() || *end || (size != 4 && size != 8))
    throw UsageError(fmt::format("{}: '{}' is not a {}-byte float", where, number, size));
  std::vector<uint8_t> bytes(size);
  if (size == 4) {
    const float f = float(d);
    std::memcpy(bytes.data(), &f, 4);
  } else {
    std::memcpy(bytes.data(), &d, 8);
  }
  return bytes;
}

// A by_value argument: an integer; a float when the metadata's .type_name says
// so, or written f32:VALUE / f64:VALUE (clang's HIP metadata names no types, so
// a float literal for an argument of unknown type could put float bits in an int).
cdna4::Arg scalar(const cdna4::KernelArg& arg, const std::string& text, const std::string& key) {
  const std::string where = "--arg " + key;
  if (auto raw = cdna4::tools::parse_raw_bytes(text, arg.size, "--arg " + key, read_file_of_size))
    return cdna4::Arg::bytes(std::move(*raw));
  const ScalarKind kind = scalar_kind(arg);
  for (const auto& [prefix, size] : {std::pair{"f32:", 4u}, std::pair{"f64:", 8u}})
    if (text.starts_with(prefix)) {
      if (kind == ScalarKind::integer)
        throw UsageError(fmt::format("{}: '{}' is a float, but the argument is an integer ({})", where, text, arg.type_name));
      if (arg.size != size) throw UsageError(fmt::format("{}: '{}' has {} bytes, the argument {}", where, text, size, arg.size));
      return cdna4::Arg::bytes(float_bytes(text.substr(4), size, where));
    }
  const bool is_float = text.find_first_of(".eEn") != std::string::npos && !text.starts_with("0x") &&
                        !text.starts_with("-0x");
  if (kind == ScalarKind::floating) return cdna4::Arg::bytes(float_bytes(text, arg.size, where));
  if (is_float && kind == ScalarKind::integer)
    throw UsageError(fmt::format("{}: '{}' is a float, but the argument is an integer ({})", where, text, arg.type_name));
  if (is_float)
    throw UsageError(fmt::format("{}: '{}' is a float, but the metadata does not say the argument is one (no "
                                 ".type_name) and an integer would get float bits; write f{}:{} for a float",
                                 where, text, arg.size == 8 ? 64 : 32, text));
  auto bad = [&] { return UsageError(fmt::format("{}={}: not a {}-byte integer", where, text, arg.size)); };
  std::vector<uint8_t> bytes(arg.size);
  bool negative = text.starts_with("-");
  uint64_t magnitude = parse_uint(text.substr(negative ? 1 : 0), "--arg " + key);
  if (arg.size == 0 || arg.size > 8) throw bad();
  int bits = int(arg.size) * 8;
  uint64_t limit = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
  if (negative ? magnitude > (limit >> 1) + 1 : magnitude > limit) throw bad();
  uint64_t value = negative ? uint64_t(0) - magnitude : magnitude;
  std::memcpy(bytes.data(), &value, arg.size);
  return cdna4::Arg::bytes(std::move(bytes));
}

// --buf VALUE: a file, a size, or null (no buffer).
std::optional<cdna4::Buffer> make_buffer(cdna4::Device& device, const std::string& spec, const std::string* fill_how,
                                         const std::string& label) {
  if (spec == "null") {
    if (fill_how) throw UsageError(fmt::format("--fill for {}, a null pointer", label));
    return std::nullopt;
  }
  std::vector<uint8_t> bytes = is_size_spec(spec)
                                   ? std::vector<uint8_t>(parse_size(spec, "--buf " + label, kMaxBufferBytes))
                                   : read_file(spec, kMaxBufferBytes, "--buf " + label);
  if (fill_how) fill(bytes, *fill_how, label);
  cdna4::Buffer buffer = device.alloc(bytes.size());
  buffer.upload(bytes.data(), bytes.size());
  return buffer;
}

// Raw kernarg mode: the block from --kernarg/--kernarg-size with buffers and
// scalars placed at offsets; returns the named buffers for --out.
cdna4::KernargBlock raw_block(const Options& o, cdna4::Device& device, std::map<std::string, cdna4::Buffer>& named) {
  cdna4::KernargBlock block = o.kernarg_file ? cdna4::KernargBlock(read_file(*o.kernarg_file, cdna4::kMaxKernargSegmentBytes, "--kernarg"))
                                             : cdna4::KernargBlock(*o.kernarg_size);
  for (const auto& [key, spec] : o.bufs) {
    auto p = cdna4::tools::parse_placement(key, "--buf", parse_uint);
    if (!p) throw UsageError(fmt::format("--buf {}: with a raw kernarg block, buffers are NAME@OFFSET=...", key));
    if (named.count(p->name)) throw UsageError(fmt::format("--buf names {} twice", p->name));
    auto fill_it = o.fills.find(p->name);
    auto buffer = make_buffer(device, spec, fill_it == o.fills.end() ? nullptr : &fill_it->second, p->name);
    if (buffer) {
      block.pointer(p->offset, *buffer);
      named[p->name] = *buffer;
    } else {
      block.pointer(p->offset, 0);
    }
  }
  for (const auto& [key, value] : o.args) {
    auto p = cdna4::tools::parse_placement(key, "--arg", parse_uint);
    if (!p) throw UsageError(fmt::format("--arg {}: with a raw kernarg block, scalars are TYPE@OFFSET=VALUE", key));
    cdna4::tools::put_typed(block, *p, value, parse_uint);
  }
  for (const auto& [name, how] : o.fills)
    if (!named.count(name)) throw UsageError(fmt::format("--fill {}: no buffer of that name", name));
  for (const auto& [name, path] : o.outs)
    if (!named.count(name)) throw UsageError(fmt::format("--out {}: no buffer of that name", name));
  return block;
}

void list_kernels(const std::string& path) {
  cdna4::CodeObject code = cdna4::CodeObject::read(read_code_object(path));
  for (const cdna4::KernelInfo& k : code.kernels()) {
    fmt::print("{}: kernarg {} bytes, LDS {} bytes, private {} bytes per work-item, max workgroup {}\n", k.name,
               k.kernarg_bytes(), k.group_segment_fixed_size,
               std::max(k.private_segment_fixed_size, k.md_private_segment_fixed_size), k.max_flat_workgroup_size);
    auto args = cdna4::explicit_args(k);
    for (size_t i = 0; i < args.size(); ++i) fmt::print("  {}\n", cdna4::describe_arg(*args[i], i));
  }
}

// --check: decodes each kernel and lists what the emulator cannot execute.
int check_kernels(const Options& o) {
  const std::vector<uint8_t> bytes = read_code_object(o.hsaco);
  const cdna4::CodeObject code = cdna4::CodeObject::read(bytes);
  std::vector<std::string> names;
  if (!o.kernel.empty()) names.push_back(o.kernel);
  else
    for (const cdna4::KernelInfo& k : code.kernels()) names.push_back(k.name);
  nlohmann::json kernels = nlohmann::json::array();
  bool all_supported = true;
  for (const std::string& name : names) {
    auto unsupported = cdna4::emulator_unsupported(cdna4::Kernel::from_hsaco(bytes, name));
    all_supported = all_supported && unsupported.empty();
    nlohmann::json list = nlohmann::json::array();
    uint64_t occurrences = 0;
    for (const auto& u : unsupported) {
      list.push_back(cdna4::tools::unsupported_json(u));
      occurrences += u.count;
    }
    kernels.push_back({{"name", name}, {"unsupported", list}});
    if (o.json) continue;
    if (unsupported.empty()) fmt::print("{}: the emulator can execute every reachable instruction\n", name);
    else
      fmt::print("{}: {} instruction{} the emulator cannot execute ({} distinct)\n", name, occurrences,
                 occurrences == 1 ? "" : "s", unsupported.size());
    for (const auto& u : unsupported) fmt::print("{}\n", cdna4::tools::unsupported_line(name, u));
  }
  if (o.json) fmt::print("{}\n", nlohmann::json{{"kernels", kernels}}.dump(2));
  return all_supported ? 0 : 1;
}

void print_json(const cdna4::Kernel& kernel, const std::string& device, cdna4::Dim3 grid, bool work_items,
                cdna4::Dim3 block, const cdna4::LaunchStats& stats) {
  nlohmann::json out = {
      {"kernel", kernel.name()},
      {"device", device},
      {"grid", {grid.x, grid.y, grid.z}},
      {"grid_unit", work_items ? "work-items" : "workgroups"},
      {"block", {block.x, block.y, block.z}},
      {"seconds", stats.seconds},
      {"instructions", stats.instructions},
      {"mfma_macs", stats.mfma_macs},
  };
  cdna4::tools::add_races_json(out, stats);
  if (stats.model) out["model"] = cdna4::tools::model_json(*stats.model);
  fmt::print("{}\n", out.dump(2));
}

cdna4::Device open_device(const Options& o) {
  cdna4::EmulatorConfig config;
  config.instant_completion = o.instant;
  config.timed = o.timed;
  config.model_only = o.model_only;
  config.max_races = o.max_races;
  config.mfma_policy = o.mfma_policy;
  config.model_timeline = !o.trace.empty() || !o.timeline.empty();
  config.max_trace_bytes = o.max_trace_bytes.value_or(config.max_trace_bytes);
  if (o.seed) config.seed = *o.seed;
  return cdna4::Device::open(o.device, config);
}

// Kernel::from_file's messages, with the code object read as every input file is.
cdna4::Kernel load_kernel(const std::string& path, const std::string& name) {
  std::vector<uint8_t> bytes = read_code_object(path);
  try {
    return cdna4::Kernel::from_hsaco(std::move(bytes), name);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
}

cdna4::Dim3 grid_of(const Options& o) { return o.global ? *o.global : *o.grid; }

cdna4::LaunchOptions launch_options(const Options& o) {
  cdna4::LaunchOptions launch;
  launch.dynamic_lds = o.dynamic_lds;
  launch.on_race = cdna4::OnRace::Report;
  launch.grid_unit = o.global ? cdna4::GridUnit::WorkItems : cdna4::GridUnit::Workgroups;
  launch.max_instructions = o.max_instructions;
  launch.time_limit_seconds = o.timeout;
  if (!progress) progress.emplace("cdna4-run", o.quiet || o.json);
  progress->attach(launch);
  return launch;
}

int report(const Options& o, const cdna4::Kernel& kernel, const cdna4::Device& device,
           const cdna4::LaunchStats& stats, cdna4::tools::OutputFiles& outputs);
int run_raw(const Options& o, const cdna4::Kernel& kernel);

int run(const Options& o) {
  if (o.list) return list_kernels(o.hsaco), 0;
  if (o.check) return check_kernels(o);
  cdna4::Kernel kernel = load_kernel(o.hsaco, o.kernel);
  if (o.kernarg_file || o.kernarg_size) return run_raw(o, kernel);
  std::vector<ArgSlot> slots;
  auto explicit_args = cdna4::explicit_args(kernel.info());
  if (explicit_args.empty() && kernel.info().kernarg_bytes() > 0)
    throw Error(fmt::format("kernel {} has a kernarg segment but no argument metadata; cdna4-run needs "
                            "the metadata's .args to place arguments, or a raw block (--kernarg or --kernarg-size)", kernel.name()));
  for (size_t i = 0; i < explicit_args.size(); ++i) slots.push_back({explicit_args[i], i});

  // Every option must name an argument of the right kind.
  std::map<size_t, std::string> buf_of, fill_of, arg_of, out_of;
  auto assign = [&](const std::map<std::string, std::string>& given, const char* flag, bool buffer,
                    std::map<size_t, std::string>& into) {
    for (const auto& [key, value] : given) {
      const ArgSlot& s = find_slot(slots, key, flag);
      if (s.is_buffer() != buffer)
        throw UsageError(fmt::format("{} {}: argument {} is {}", flag, key, cdna4::describe_arg(*s.arg, s.position),
                                     buffer ? "not a buffer (use --arg)" : "a buffer (use --buf)"));
      if (!into.emplace(s.position, value).second)
        throw UsageError(fmt::format("{} names argument #{} twice", flag, s.position));
    }
  };
  assign(o.bufs, "--buf", true, buf_of);
  assign(o.fills, "--fill", true, fill_of);
  assign(o.args, "--arg", false, arg_of);
  assign(o.outs, "--out", true, out_of);

  cdna4::Device device = open_device(o);
  std::vector<cdna4::Arg> args;
  std::map<size_t, cdna4::Buffer> buffers;
  for (const ArgSlot& s : slots) {
    std::string label = cdna4::describe_arg(*s.arg, s.position);
    if (!s.is_buffer()) {
      if (!arg_of.count(s.position)) throw UsageError(fmt::format("argument {} needs --arg", label));
      args.push_back(scalar(*s.arg, arg_of[s.position], label));
      continue;
    }
    if (!buf_of.count(s.position)) throw UsageError(fmt::format("argument {} needs --buf", label));
    auto fill_it = fill_of.find(s.position);
    std::optional<cdna4::Buffer> buffer =
        make_buffer(device, buf_of[s.position], fill_it == fill_of.end() ? nullptr : &fill_it->second, label);
    if (!buffer) {
      if (out_of.count(s.position)) throw UsageError(fmt::format("--out for argument {}, a null pointer", label));
      args.push_back(cdna4::Arg::pointer(0));
      continue;
    }
    buffers[s.position] = *buffer;
    args.push_back(*buffer);
  }

  cdna4::LaunchStats stats = device.launch(kernel, grid_of(o), *o.block, args, launch_options(o));
  progress->finish();
  cdna4::tools::OutputFiles outputs;
  for (const auto& [position, path] : out_of) stage_buffer(outputs, path, buffers[position]);
  return report(o, kernel, device, stats, outputs);
}

int run_raw(const Options& o, const cdna4::Kernel& kernel) {
  cdna4::Device device = open_device(o);
  std::map<std::string, cdna4::Buffer> named;
  cdna4::KernargBlock block = raw_block(o, device, named);
  cdna4::LaunchStats stats = device.launch(kernel, grid_of(o), *o.block, block, launch_options(o));
  progress->finish();
  cdna4::tools::OutputFiles outputs;
  for (const auto& [name, path] : o.outs) stage_buffer(outputs, path, named[name]);
  return report(o, kernel, device, stats, outputs);
}

int report(const Options& o, const cdna4::Kernel& kernel, const cdna4::Device& device,
           const cdna4::LaunchStats& stats, cdna4::tools::OutputFiles& outputs) {
  cdna4::Dim3 grid = grid_of(o);
  if (stats.model && !o.trace.empty())
    outputs.stage(o.trace, [&](std::ostream& out) { cdna4::tools::chrome_trace(out, *stats.model); });
  if (stats.model && !o.timeline.empty()) outputs.stage(o.timeline, cdna4::tools::timeline_svg(*stats.model, kernel.name()));
  outputs.commit();
  if (o.json) {
    print_json(kernel, device.name(), grid, o.global.has_value(), *o.block, stats);
    return stats.races.empty() && !stats.dropped_races ? 0 : 3;
  }
  fmt::print("{} on {}: grid ({},{},{}) {} block ({},{},{}): {:.6f} s", kernel.name(), device.name(),
             grid.x, grid.y, grid.z, o.global ? "work-items" : "workgroups", o.block->x, o.block->y,
             o.block->z, stats.seconds);
  if (stats.instructions) fmt::print(", {} wave-instructions", stats.instructions);
  if (stats.mfma_macs) fmt::print(", {} MFMA MACs", stats.mfma_macs);
  fmt::print("\n");
  if (stats.model) cdna4::tools::print_model_lines(*stats.model);
  cdna4::tools::print_race_lines(stats, o.max_races);
  return stats.races.empty() && !stats.dropped_races ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    cdna4::tools::install_interrupt_handler();
    return run(parse_command_line(argc, argv));
  } catch (const UsageError& e) {
    fmt::print(stderr, "cdna4-run: {}\n(see cdna4-run --help)\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    if (progress) progress->finish();
    if (cdna4::tools::LaunchProgressBar::interrupted()) {
      const uint64_t total = progress ? progress->last().workgroups_total : 0;
      fmt::print(stderr, "cdna4-run: interrupted (Ctrl-C) {}; no outputs written\n",
                 total ? fmt::format("after {} of {} workgroups", progress->last().workgroups_done, total)
                       : std::string("before the launch started"));
      return cdna4::tools::kExitInterrupted;
    }
    fmt::print(stderr, "cdna4-run: {}\n", e.what());
    return 1;
  }
}
