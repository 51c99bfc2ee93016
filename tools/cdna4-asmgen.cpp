// cdna4-asmgen: gfx950 assembly -> relocatable object or HSA code object, with
// the kernel metadata on request.
#include <chrono>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cdna4/code_object.hpp"
#include "cdna4/error.hpp"
#include "cdna4/gemm.hpp"
#include "cdna4/schedule.hpp"
#include "cdna4/assembler.hpp"
#include "verify_cli.hpp"
#include "cli_conventions.hpp"
#include "cli_names.hpp"
#include "input_file.hpp"
#include "output_file.hpp"

namespace {

using cdna4::tools::UsageError;

const char* kUsage =
    "usage: cdna4-asmgen [options] INPUT.s\n"
    "       cdna4-asmgen SCHEDULE.json --shape MxNxK [--out-type f32|bf16|f16] [-o OUT] [--emit ...]\n"
    "       cdna4-asmgen --verify SCHEDULE.json\n"
    "\n"
    "Assembles gfx950 assembly, or compiles a GEMM schedule for a shape, in process\n"
    "(LLVM MC + lld) into an HSA code object (code object v5).\n"
    "\n"
    "options:\n"
    "  -o FILE              output file (default: INPUT with the --emit extension)\n"
    "  --emit KIND          asm (.s, schedules only), obj (.o), hsaco, or metadata (.yaml);\n"
    "                       default from the -o extension, else hsaco\n"
    "  --shape MxNxK        GEMM shape for a schedule\n"
    "  --out-type f32|bf16|f16  C element type for a schedule (default f32)\n"
    "  --layout nn|nt|tn|tt operand layouts for a schedule (default: the schedule's)\n"
    "  --print-metadata     print each kernel's descriptor fields and the metadata note\n"
    "  --picture            print the steady-state loop body (memory ops, MFMAs, waits, barriers)\n"
    "  --verify FILE.json   plan and verify a schedule; print the verdict and the plan (an attention\n"
    "                       schedule, kind \"attention\", with explicit ops: also its loop picture)\n"
    "  --version            print the version\n"
    "  -h, --help           this text\n"
    "\n"
    "The output may not be the input; it is written whole or not at all (a temporary\n"
    "renamed into place; a device or pipe such as /dev/stdout is written directly).\n"
    "Exit status: 0 success, 1 error, 2 bad usage, 3 --verify rejected the schedule.\n";

struct Options {
  std::string input, output, emit, shape, verify;
  cdna4::OutType out_type = cdna4::OutType::f32;
  std::optional<cdna4::Layout> layout;
  bool print_metadata = false, picture = false;
};

// Hand-written kernels are far smaller; a device or a pipe is refused before reading.
constexpr uint64_t kMaxInputBytes = uint64_t(256) << 20;

std::string read_text(const std::string& path) {
  return cdna4::tools::read_text_at_most(path, kMaxInputBytes, "assembly input");
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  cdna4::tools::write_file_whole(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* flag) -> std::string {
      if (i + 1 >= argc) throw UsageError(fmt::format("{} needs a value", flag));
      return argv[++i];
    };
    if (a == "-h" || a == "--help") { std::cout << kUsage; std::exit(0); }
    else if (a == "--version") { cdna4::tools::print_version("cdna4-asmgen"); std::exit(0); }
    else if (a == "-o") o.output = cdna4::tools::output_path<UsageError>(value("-o"), a);
    else if (a == "--emit") o.emit = value("--emit");
    else if (a == "--print-metadata") o.print_metadata = true;
    else if (a == "--picture") o.picture = true;
    else if (a == "--shape") o.shape = value("--shape");
    else if (a == "--out-type") o.out_type = cdna4::tools::parse_named<cdna4::OutType, UsageError>(value("--out-type"), a);
    else if (a == "--layout") o.layout = cdna4::tools::parse_named<cdna4::Layout, UsageError>(value("--layout"), a);
    else if (a == "--verify") o.verify = value("--verify");
    else if (!a.empty() && a[0] == '-') throw UsageError("unknown option " + a + " (see --help)");
    else if (o.input.empty()) o.input = a;
    else throw UsageError("more than one input: " + o.input + " and " + a);
  }
  if (!o.verify.empty()) return o;
  if (o.input.empty()) throw UsageError("no input file (see --help)");
  const bool schedule = ends_with(o.input, ".json");
  if (schedule && o.shape.empty()) throw UsageError("a schedule needs --shape MxNxK");
  if (!schedule && !o.shape.empty()) throw UsageError("--shape applies to a schedule (.json) input");
  if (!schedule && o.layout) throw UsageError("--layout applies to a schedule (.json) input");
  if (o.emit.empty()) {
    if (ends_with(o.output, ".o")) o.emit = "obj";
    else if (ends_with(o.output, ".s")) o.emit = "asm";
    else if (ends_with(o.output, ".yaml")) o.emit = "metadata";
    else o.emit = "hsaco";
  }
  if (o.emit != "obj" && o.emit != "hsaco" && o.emit != "asm" && o.emit != "metadata")
    throw UsageError("--emit takes asm, obj, hsaco or metadata, not " + o.emit);
  if (o.emit == "asm" && !schedule) throw UsageError("--emit asm needs a schedule input");
  if (o.output.empty()) {
    std::string stem = o.input.substr(0, o.input.rfind('.'));
    static const std::map<std::string, std::string> ext{
        {"obj", ".o"}, {"hsaco", ".hsaco"}, {"asm", ".s"}, {"metadata", ".yaml"}};
    o.output = stem + ext.at(o.emit);
  }
  cdna4::tools::check_outputs<UsageError>({{o.input, "the input"}}, {{o.output, "the output"}});
  return o;
}

void print_metadata(const cdna4::CodeObject& co) {
  fmt::print("target: {}  code object v{}  .text {} bytes\n", co.target(), co.code_object_version(),
             co.text().size());
  for (const auto& k : co.kernels()) {
    fmt::print("kernel {}: entry +0x{:x}, VGPRs {} (AGPRs {}, accum_offset {}), SGPRs {}, LDS {} B, "
               "kernarg {} B, wave{}, max workgroup {}\n",
               k.name, k.entry_offset, k.vgpr_count, k.agpr_count, k.accum_offset, k.sgpr_count,
               k.group_segment_fixed_size, k.kernarg_bytes(), k.wavefront_size, k.max_flat_workgroup_size);
    for (const auto& a : k.args)
      fmt::print("  arg {:<8} offset {:>3} size {} {}\n", a.name, a.offset, a.size, a.value_kind);
  }
  fmt::print("{}", co.metadata_yaml());
}

}  // namespace

void write_text(const std::string& path, const std::string& text) {
  write_bytes(path, std::vector<uint8_t>(text.begin(), text.end()));
}

// One screen: what the kernel costs and where its time went.
void print_summary(const cdna4::GemmKernel& k) {
  const auto& st = k.stats;
  fmt::print("kernel {} for {}: grid {}x{} workgroups of {} work-items\n", k.kernel.name(), k.shape.to_string(),
             k.grid.x, k.grid.y, k.block.x);
  fmt::print("registers: {} VGPR (incl. {} AGPR), {} SGPR; LDS {} bytes; occupancy (modeled) {} wave{} per SIMD, "
             "limited by {}\n",
             st.vgprs, st.agprs, st.sgprs, st.lds_bytes, st.waves_per_simd, st.waves_per_simd == 1 ? "" : "s",
             st.occupancy_limit);
  fmt::print("instructions: {} in the kernel, {} MFMA", st.instructions, st.mfma);
  if (st.loop_instructions)
    fmt::print("; steady-state loop body {} instructions for {} iteration(s)", st.loop_instructions,
               st.loop_iterations);
  fmt::print("\ncompile {:.2f} ms (plan+verify {:.2f}, lower {:.2f}, assemble {:.2f}, link {:.2f})\n", st.total_ms,
             st.parse_plan_verify_ms, st.lower_ms, st.assemble_ms, st.link_ms);
}

int compile_schedule(const Options& o) {
  cdna4::GemmShape shape = cdna4::parse_shape(o.shape);
  shape.out = o.out_type;
  const cdna4::Schedule schedule = cdna4::load_schedule(o.input);
  cdna4::CompileOptions options;
  options.keep_assembly = true;
  options.layout = o.layout;
  const cdna4::GemmKernel k = cdna4::compile(schedule, shape, options);
  if (o.emit == "asm") write_text(o.output, k.assembly);
  else if (o.emit == "hsaco") write_bytes(o.output, k.kernel.hsaco());
  else if (o.emit == "metadata") write_text(o.output, k.kernel.code_object().metadata_yaml());
  else write_bytes(o.output, cdna4::assemble_text(k.assembly, o.input));
  print_summary(k);
  fmt::print("wrote {} ({})\n", o.output, o.emit);
  if (o.picture) {
    const std::string picture = cdna4::steady_loop_picture(k.assembly);
    fmt::print("{}", picture.empty() ? "no steady-state loop at this K (too few tiles)\n" : picture);
  }
  if (o.print_metadata) print_metadata(k.kernel.code_object());
  return 0;
}

int main(int argc, char** argv) {
  try {
    Options o = parse(argc, argv);
    if (!o.verify.empty()) return cdna4::tools::run_verify_cli(o.verify, std::cout);  // 0, 1 not a schedule, 3 rejected
    if (ends_with(o.input, ".json")) return compile_schedule(o);
    const std::string text = read_text(o.input);
    const auto t0 = std::chrono::steady_clock::now();
    cdna4::TextAssemblyOptions text_options;  // a file given here may include its neighbours
    text_options.allow_file_directives = true;
    text_options.include_dir = std::filesystem::absolute(o.input).parent_path().string();
    auto object = cdna4::assemble_text(text, o.input, text_options);
    const auto t1 = std::chrono::steady_clock::now();
    std::vector<uint8_t> out = object;
    if (o.emit == "hsaco" || o.emit == "metadata") out = cdna4::link_code_object(object);
    const auto t2 = std::chrono::steady_clock::now();
    if (o.emit == "metadata") write_text(o.output, cdna4::CodeObject::read(out).metadata_yaml());
    else write_bytes(o.output, out);
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    fmt::print("{}: {} bytes ({}; assemble {:.2f} ms{})\n", o.output, out.size(), o.emit, ms(t0, t1),
               o.emit == "hsaco" ? fmt::format(", link {:.2f} ms", ms(t1, t2)) : "");
    if (o.print_metadata) {
      if (o.emit == "obj") throw cdna4::Error("--print-metadata needs a linked code object, not --emit obj");
      print_metadata(cdna4::CodeObject::read(o.emit == "hsaco" ? out : cdna4::link_code_object(object)));
    }
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "cdna4-asmgen: %s\n", e.what());
    return cdna4::tools::kExitUsage;
  } catch (const cdna4::Error& e) {
    std::fprintf(stderr, "cdna4-asmgen: %s\n", e.what());
    return cdna4::tools::kExitError;
  }
}
