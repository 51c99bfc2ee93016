// Text assembly treats its input as untrusted: no file system unless allowed,
// and a bounded expansion of repetition and reserved bytes.
#include <catch2/catch.hpp>

#include <chrono>

#include <fmt/format.h>

#include "codegen/schedule/geometry.hpp"
#include "cdna4/error.hpp"
#include "codegen/assembler.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"

using namespace cdna4;
using cdna4::test::error_of;

namespace {

std::string text_with(const std::string& body) {
  return ".amdgcn_target \"amdgcn-amd-amdhsa--gfx950\"\n.text\n" + body + "\ns_endpgm\n";
}

double seconds_of(const std::function<void()>& f) {
  auto t0 = std::chrono::steady_clock::now();
  try {
    f();
  } catch (const Error&) {
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("text assembly: .include and .incbin see no file system unless allowed", "[assembler]") {
  test::TempDir dir;
  test::write_binary(dir.file("secret.s"), {'s', '_', 'n', 'o', 'p', ' ', '0', ' ', '/', '/', 'S', 'E', 'C', 'R', 'E', 'T', '\n'});
  for (const std::string directive : {".include", ".incbin"}) {
    std::string message = error_of([&] { codegen::assemble(text_with(directive + " \"" + dir.file("secret.s") + "\"")); });
    INFO(message);
    CHECK_FALSE(message.empty());
    CHECK(message.find("SECRET") == std::string::npos);
    std::string passwd = error_of([&] { codegen::assemble(text_with(directive + " \"/etc/passwd\"")); });
    CHECK_FALSE(passwd.empty());
    CHECK(passwd.find("root:") == std::string::npos);
  }
  codegen::TextAssemblyOptions allowed;
  allowed.allow_file_directives = true;
  allowed.include_dir = dir.path;
  const auto with_include = codegen::assemble(text_with(".include \"secret.s\""), "k.s", allowed);
  const auto inline_nop = codegen::assemble(text_with("s_nop 0"), "k.s");
  CHECK(with_include == inline_nop);  // resolved against include_dir, not the working directory
}

TEST_CASE("text assembly: runaway .rept and .fill are errors, not hangs or aborts", "[assembler]") {
  CHECK_THAT(error_of([] { codegen::assemble(text_with(".rept 100000000\ns_nop 0\n.endr")); }),
             Catch::Contains("<input>:3:1: error: repetition expands to more than 1048576 lines"));
  CHECK_THAT(error_of([] { codegen::assemble(text_with(".rept 1000\n.rept 1000\n.rept 1000\ns_nop 0\n.endr\n.endr\n.endr")); }),
             Catch::Contains("repetition expands to more than"));
  CHECK_THAT(error_of([] { codegen::assemble(text_with(".set N, 1 << 30\n.rept N\ns_nop 0\n.endr")); }),
             Catch::Contains("repetition expands to more than"));
  CHECK_THAT(error_of([] { codegen::assemble(text_with(".fill 4000000000")); }),
             Catch::Contains(".fill reserves more than 67108864 bytes"));
  CHECK_THAT(error_of([] { codegen::assemble(text_with(".rept 1000\n.space 100000\n.endr")); }),
             Catch::Contains(".space reserves more than"));
  CHECK_THAT(error_of([] { codegen::assemble(text_with(".irp r, 1, 2\n.rept 1000000\ns_nop 0\n.endr\n.endr")); }),
             Catch::Contains("repetition expands to more than"));
  CHECK(seconds_of([] { codegen::assemble(text_with(".rept 100000000\ns_nop 0\n.endr")); }) < 5.0);

  // Within the limits the directives mean what they always did.
  const auto four = codegen::assemble(text_with(".rept 2\n.irp r, 0, 1\ns_nop \\r\n.endr\n.endr"));
  const auto spelled = codegen::assemble(text_with("s_nop 0\ns_nop 1\ns_nop 0\ns_nop 1"));
  CHECK(four == spelled);
  codegen::TextAssemblyOptions small;
  small.max_repeated_lines = 10;
  CHECK_THAT(error_of([&] { codegen::assemble(text_with(".rept 20\ns_nop 0\n.endr"), "k.s", small); }),
             Catch::Contains("k.s:3:1: error: repetition expands to more than 10 lines"));
}

TEST_CASE("cdna4-asmgen: a file given on the command line may include files next to it", "[assembler][cli]") {
  test::TempDir dir;
  const std::string nop = "s_nop 3\n";
  test::write_binary(dir.file("part.s"), std::vector<uint8_t>(nop.begin(), nop.end()));
  const std::string main_text = text_with(".include \"part.s\"");
  test::write_binary(dir.file("main.s"), std::vector<uint8_t>(main_text.begin(), main_text.end()));
  auto r = test::run_command({std::string(CDNA4_BINARY_DIR) + "/cdna4-asmgen", dir.file("main.s"), "-o", dir.file("main.o")});
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::string inlined = text_with(nop);
  CHECK(test::read_binary(dir.file("main.o")) == codegen::assemble(inlined, dir.file("main.s")));
}

TEST_CASE("text assembly: counts from symbols a repeated body reassigns, and blank-separated .irp arguments, are bounded", "[assembler]") {
  const std::string refused = "depends on a symbol that a repeated body reassigns";
  CHECK_THAT(error_of([] { codegen::assemble(text_with("n = 1\n.rept 40\nn = n * 2\n.endr\n.rept n\ns_nop 0\n.endr")); }),
             Catch::Contains(refused));
  CHECK_THAT(error_of([] { codegen::assemble(text_with("n = 1\n.rept 40\nn = n * 2\n.rept n\ns_nop 0\n.endr\n.endr")); }),
             Catch::Contains(refused));
  CHECK_THAT(error_of([] { codegen::assemble(text_with(".macro dbl\nn = n * 2\n.endm\nn = 1\n.rept 40\ndbl\n.endr\n.fill n")); }),
             Catch::Contains(refused));
  std::string forty;
  for (int i = 0; i < 40; ++i) forty += " " + std::to_string(i);
  std::string nested;
  for (int d = 0; d < 6; ++d) nested += fmt::format(".irp x{},{}\n", d, forty);
  nested += "s_nop 0\n";
  for (int d = 0; d < 6; ++d) nested += ".endr\n";
  CHECK(seconds_of([&] { codegen::assemble(text_with(nested)); }) < 5.0);
  CHECK_THAT(error_of([&] { codegen::assemble(text_with(nested)); }), Catch::Contains("repetition expands to more than"));

  // Symbols set outside any repetition still give counts, and blank-separated arguments still expand.
  CHECK(codegen::assemble(text_with(".set N, 3\n.rept N\ns_nop 0\n.endr")) ==
        codegen::assemble(text_with(".set N, 3\ns_nop 0\ns_nop 0\ns_nop 0")));
  CHECK(codegen::assemble(text_with(".irp r, 0 1\ns_nop \\r\n.endr")) == codegen::assemble(text_with("s_nop 0\ns_nop 1")));
}
