// In-process assembly and linking against the llvm-mc-22 / ld.lld-22 executables.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <regex>
#include <thread>

#include "cdna4/code_object.hpp"
#include "cdna4/error.hpp"
#include "codegen/assembler.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"

using namespace cdna4;
using cdna4::test::error_of;
using cdna4::test::TempDir;

namespace {

const std::string kExample = "tools/examples/mfma_16x16x128.s";

std::string example_text() { return test::read_text_file(test::source_path(kExample)); }

// The example's directives with one line removed.
std::string without_line(const std::string& text, const std::string& needle) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    if (line.find(needle) == std::string::npos) out += line + "\n";
    pos = end + 1;
  }
  return out;
}

// Points TMPDIR at an empty directory for the lifetime of the guard.
struct TmpdirGuard {
  TempDir dir;
  std::string saved;
  bool had = false;
  TmpdirGuard() {
    if (const char* t = std::getenv("TMPDIR")) { saved = t; had = true; }
    setenv("TMPDIR", dir.path.c_str(), 1);
  }
  ~TmpdirGuard() { had ? setenv("TMPDIR", saved.c_str(), 1) : unsetenv("TMPDIR"); }
};

}  // namespace

TEST_CASE("in-process assemble+link is byte-identical to llvm-mc-22 + ld.lld-22", "[foundation][assembler]") {
  TempDir dir;
  const std::string src = test::source_path(kExample);
  auto mc = test::run_command({CDNA4_LLVM_MC, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx950", "-filetype=obj", src,
                               "-o", dir.file("ref.o")});
  REQUIRE(mc.status == 0);
  std::vector<std::string> ld{CDNA4_LD_LLD};
  for (const auto& f : codegen::link_flags()) ld.push_back(f);
  ld.insert(ld.end(), {dir.file("ref.o"), "-o", dir.file("ref.hsaco")});
  auto link = test::run_command(ld);
  REQUIRE(link.status == 0);

  const std::string text = example_text();
  const auto object = codegen::assemble(text, src);
  CHECK((object == test::read_binary(dir.file("ref.o"))));
  const auto hsaco = codegen::link_hsaco(object);
  CHECK((hsaco == test::read_binary(dir.file("ref.hsaco"))));
}

TEST_CASE("the hsaco is accepted by llvm-readelf and llvm-objdump", "[foundation][assembler]") {
  TempDir dir;
  const auto hsaco = codegen::build_hsaco(example_text());
  test::write_binary(dir.file("k.hsaco"), hsaco);
  auto notes = test::run_command({CDNA4_LLVM_READELF, "--notes", dir.file("k.hsaco")});
  REQUIRE(notes.status == 0);
  CHECK(notes.output.find("NT_AMDGPU_METADATA") != std::string::npos);
  CHECK(notes.output.find(".name:           mfma_16x16x128") != std::string::npos);
  auto dis = test::run_command({CDNA4_LLVM_OBJDUMP, "-d", "--mcpu=gfx950", dir.file("k.hsaco")});
  REQUIRE(dis.status == 0);
  for (const char* mnemonic : {"buffer_load_dwordx4", "ds_read_b128", "v_mfma_f32_16x16x32_bf16",
                               "s_waitcnt vmcnt(6)", "s_setprio 1", "s_barrier", "s_endpgm"})
    CHECK(dis.output.find(mnemonic) != std::string::npos);
  CHECK(dis.output.find("<unknown>") == std::string::npos);
}

TEST_CASE("the reader returns what the directives set", "[foundation][code_object]") {
  const auto co = CodeObject::read(codegen::build_hsaco(example_text()));
  CHECK(co.target() == "amdgcn-amd-amdhsa--gfx950");
  CHECK(co.code_object_version() == 5);
  REQUIRE(co.kernels().size() == 1);
  const auto& k = co.kernel("mfma_16x16x128");
  CHECK(k.group_segment_fixed_size == 8192);
  CHECK(k.md_group_segment_fixed_size == 8192);
  CHECK(k.kernarg_size == 24);
  CHECK(k.md_kernarg_size == 24);
  CHECK(k.accum_offset == 48);
  CHECK(k.vgpr_count == 52);
  CHECK(k.agpr_count == 4);
  CHECK(k.sgpr_count == 29);
  CHECK(k.wavefront_size == 64);
  CHECK(k.max_flat_workgroup_size == 64);
  CHECK(k.user_sgpr_kernarg_ptr());
  CHECK(k.user_sgpr_count() == 2);
  CHECK(k.workgroup_id_x());
  CHECK_FALSE(k.workgroup_id_y());
  // VGPR granule of 8 registers, encoded minus one: 52 -> 56 -> 6.
  CHECK(k.vgpr_granule_count == 6);
  REQUIRE(k.args.size() == 3);
  CHECK(k.args[1].name == "bt");
  CHECK(k.args[1].offset == 8);
  CHECK(k.args[2].value_kind == "global_buffer");
  // The first instruction is the s_load of A: SMEM encoding C006xxxx.
  REQUIRE(k.entry_offset + 4 <= co.text().size());
  CHECK(co.text()[k.entry_offset + 3] == 0xC0);
  CHECK_THROWS_WITH(co.kernel("nope"), Catch::Contains("has no kernel 'nope'"));
}

TEST_CASE("an unknown mnemonic is an error with file, line and column", "[foundation][errors]") {
  std::string text = example_text();
  text.replace(text.find("s_setprio 1"), 11, "s_frobnicate 1");
  const std::string e = error_of([&] { codegen::assemble(text, "bad.s"); });
  CHECK(std::regex_search(e, std::regex(R"(bad\.s:\d+:2: error: invalid instruction)")));
  CHECK(e.find("s_frobnicate") != std::string::npos);
}

TEST_CASE("a missing .amdhsa_next_free_vgpr is an error", "[foundation][errors]") {
  const std::string e = error_of([&] { codegen::assemble(without_line(example_text(), ".amdhsa_next_free_vgpr"), "k.s"); });
  CHECK(e.find("k.s:") == 0);
  CHECK(e.find(".amdhsa_next_free_vgpr directive is required") != std::string::npos);
}

TEST_CASE("empty input is an error", "[foundation][errors]") {
  CHECK(error_of([] { codegen::assemble("", "empty.s"); }) == "empty.s: empty assembly input");
  CHECK(error_of([] { codegen::assemble(" \n\t\n", "blank.s"); }) == "blank.s: empty assembly input");
  CHECK(error_of([] { codegen::link_hsaco({}); }) == "linker: empty object");
  CHECK(error_of([] { CodeObject::read({}); }) == "code object: empty input");
}

TEST_CASE("the reader rejects truncated, foreign and unlinked ELF files", "[foundation][errors][code_object]") {
  const auto object = codegen::assemble(example_text());
  const auto hsaco = codegen::link_hsaco(object);
  for (size_t cut : {size_t(4), size_t(63), hsaco.size() / 2, hsaco.size() - 1}) {
    std::vector<uint8_t> truncated(hsaco.begin(), hsaco.begin() + cut);
    CHECK_THROWS_WITH(CodeObject::read(truncated), Catch::StartsWith("code object: "));
  }
  CHECK_THROWS_WITH(CodeObject::read(object), Catch::Contains("not a linked code object"));
  const auto self = test::read_binary("/proc/self/exe");
  CHECK_THROWS_WITH(CodeObject::read(self), Catch::Contains("is not AMDGPU"));
}

TEST_CASE("errors leave no temporary files behind", "[foundation][errors][linker]") {
  TmpdirGuard guard;
  // A link failure: an undefined symbol.
  std::string text = example_text();
  text.replace(text.find("s_endpgm"), 8, "s_getpc_b64 s[30:31]\n\ts_add_u32 s30, s30, missing@rel32@lo+4\n\ts_endpgm");
  const auto object = codegen::assemble(text);
  const std::string e = error_of([&] { codegen::link_hsaco(object); });
  CHECK(e.find("linker: ") == 0);
  CHECK(e.find("undefined symbol: missing") != std::string::npos);
  CHECK(guard.dir.entry_count() == 0);
  // A good link.
  codegen::link_hsaco(codegen::assemble(example_text()));
  CHECK(guard.dir.entry_count() == 0);
}

TEST_CASE("the ld.lld-22 fallback links the same bytes", "[foundation][linker]") {
  const auto object = codegen::assemble(example_text());
  const auto in_process = codegen::link_hsaco(object);
  codegen::force_executable_linker(true);
  CHECK(codegen::linker_uses_fallback());
  std::vector<uint8_t> fallback;
  std::string e = error_of([&] { fallback = codegen::link_hsaco(object); });
  codegen::force_executable_linker(false);
  CHECK(e == "no error");
  CHECK((fallback == in_process));
}

TEST_CASE("8 threads compiling concurrently give identical code objects", "[foundation][threads]") {
  const std::string text = example_text();
  const auto reference = codegen::build_hsaco(text);
  std::vector<std::vector<uint8_t>> results(8);
  std::vector<std::string> errors(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int rep = 0; rep < 4; ++rep) results[t] = codegen::build_hsaco(text);
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) {
    INFO("thread " << t);
    CHECK(errors[t].empty());
    CHECK((results[t] == reference));
  }
}

TEST_CASE("outputs through the pipe and, when too large for it, through a file match ld.lld-22", "[linker]") {
  // The kernel alone goes through lld's in-memory output into a pipe; 700 KB of
  // read-only data makes the output larger than the pipe takes.
  for (const int padding : {0, 700000}) {
    INFO("padding " << padding);
    TmpdirGuard guard;
    std::string text = example_text();
    if (padding) text += "\t.section .rodata\n\t.space " + std::to_string(padding) + "\n";
    const auto object = codegen::assemble(text);
    const auto in_process = codegen::link_hsaco(object);
    CHECK(in_process.size() > size_t(padding));
    codegen::force_executable_linker(true);
    std::vector<uint8_t> executable;
    const std::string e = error_of([&] { executable = codegen::link_hsaco(object); });
    codegen::force_executable_linker(false);
    CHECK(e == "no error");
    CHECK((executable == in_process));
    CHECK(guard.dir.entry_count() == 0);
  }
}
