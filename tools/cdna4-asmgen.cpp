// cdna4-asmgen: gfx950 assembly -> relocatable object or HSA code object, with
// the kernel metadata on request.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cdna4/code_object.hpp"
#include "cdna4/error.hpp"
#include "codegen/assembler.hpp"

namespace {

const char* kUsage =
    "usage: cdna4-asmgen [options] INPUT.s\n"
    "\n"
    "Assembles gfx950 assembly in process (LLVM MC) and links it in process (lld)\n"
    "into an HSA code object (code object v5).\n"
    "\n"
    "options:\n"
    "  -o FILE            output file (default: INPUT with .hsaco, or .o for --emit obj)\n"
    "  --emit obj|hsaco   relocatable object or linked code object (default: hsaco,\n"
    "                     or obj when -o ends in .o)\n"
    "  --print-metadata   print each kernel's descriptor fields and the metadata note\n"
    "  -h, --help         this text\n";

struct Options {
  std::string input, output, emit;
  bool print_metadata = false;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw cdna4::Error("cannot open " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!out) throw cdna4::Error("cannot write " + path);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* flag) -> std::string {
      if (i + 1 >= argc) throw cdna4::Error(fmt::format("{} needs a value", flag));
      return argv[++i];
    };
    if (a == "-h" || a == "--help") { std::cout << kUsage; std::exit(0); }
    else if (a == "-o") o.output = value("-o");
    else if (a == "--emit") o.emit = value("--emit");
    else if (a == "--print-metadata") o.print_metadata = true;
    else if (!a.empty() && a[0] == '-') throw cdna4::Error("unknown option " + a + " (see --help)");
    else if (o.input.empty()) o.input = a;
    else throw cdna4::Error("more than one input: " + o.input + " and " + a);
  }
  if (o.input.empty()) throw cdna4::Error("no input file (see --help)");
  if (o.emit.empty()) o.emit = ends_with(o.output, ".o") ? "obj" : "hsaco";
  if (o.emit != "obj" && o.emit != "hsaco") throw cdna4::Error("--emit takes obj or hsaco, not " + o.emit);
  if (o.output.empty()) {
    std::string stem = o.input;
    if (ends_with(stem, ".s")) stem.resize(stem.size() - 2);
    o.output = stem + (o.emit == "obj" ? ".o" : ".hsaco");
  }
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

int main(int argc, char** argv) {
  try {
    Options o = parse(argc, argv);
    const std::string text = read_text(o.input);
    const auto t0 = std::chrono::steady_clock::now();
    auto object = cdna4::codegen::assemble(text, o.input);
    const auto t1 = std::chrono::steady_clock::now();
    std::vector<uint8_t> out = object;
    if (o.emit == "hsaco") out = cdna4::codegen::link_hsaco(object);
    const auto t2 = std::chrono::steady_clock::now();
    write_bytes(o.output, out);
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    fmt::print("{}: {} bytes ({}; assemble {:.2f} ms{})\n", o.output, out.size(), o.emit, ms(t0, t1),
               o.emit == "hsaco" ? fmt::format(", link {:.2f} ms", ms(t1, t2)) : "");
    if (o.print_metadata) {
      if (o.emit != "hsaco") throw cdna4::Error("--print-metadata needs --emit hsaco");
      print_metadata(cdna4::CodeObject::read(out));
    }
    return 0;
  } catch (const cdna4::Error& e) {
    std::fprintf(stderr, "cdna4-asmgen: %s\n", e.what());
    return 1;
  }
}
