// Each shipped schedule's steady-state loop, as emitted, matches the picture
// documented for it in schedules/README.md ("Loop bodies").
#include <catch2/catch.hpp>


#include "cdna4/gemm.hpp"
#include "codegen/gemm/loop_picture.hpp"
#include "schedule_test_support.hpp"
#include "support/process.hpp"

using namespace cdna4;

namespace {

std::string loop_picture(const Schedule& s) {
  CompileOptions options;
  options.keep_assembly = true;
  return codegen::steady_loop_picture(compile(s, parse_shape("512x512x1024"), options).assembly);
}

// The fenced block after "<!-- loop-picture: NAME -->".
std::string documented_picture(const std::string& readme, const std::string& name) {
  const std::string marker = "<!-- loop-picture: " + name + " -->";
  const size_t at = readme.find(marker);
  if (at == std::string::npos) return "";
  const size_t open = readme.find("```\n", at);
  const size_t close = readme.find("```", open + 4);
  return readme.substr(open + 4, close - open - 4);
}

}  // namespace

TEST_CASE("emitted loop bodies match the documented pictures", "[schedule][picture]") {
  const std::string readme = test::read_text_file(test::source_path("schedules/README.md"));
  int checked = 0;
  for (const std::string& file : schedule_test::shipped_files()) {
    const std::string name = file.substr(0, file.size() - 5);
    INFO(name);
    const Schedule s = schedule_test::load(file);
    const std::string picture = loop_picture(s);
    REQUIRE_FALSE(picture.empty());
    CHECK(picture == documented_picture(readme, name));
    ++checked;
  }
  CHECK(checked == int(schedule_test::shipped_files().size()));
}

TEST_CASE("the pictures show the structure each seed asks for", "[schedule][picture]") {
  auto picture_of = [](const char* name) {
    const Schedule s = load_schedule(test::source_path(std::string("schedules/") + name + ".json"));
    return loop_picture(s);
  };
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  // Seed 001: four phases of 16 MFMAs, 2 G2S each, setprio around every MFMA group.
  const std::string interleave = picture_of("interleave4_256x256x64_w8");
  CHECK(count(interleave, "v_mfma_f32_16x16x32_bf16 x16") == 4);
  CHECK(count(interleave, "buffer_load_dwordx4 lds x2") == 4);
  CHECK(count(interleave, "s_setprio 1") == 4);
  CHECK(count(interleave, "s_barrier") == 1);
  // Seed 000: vmcnt(6) keeps the two-tiles-ahead loads in flight.
  CHECK(count(picture_of("prefetch2_256x256x64_w8"), "s_waitcnt vmcnt(6)") == 1);
  // Seed 003: both groups run the same four clusters, barriers at cluster boundaries.
  const std::string pingpong = picture_of("pingpong_256x256x64_w8");
  CHECK(count(pingpong, "_steady_loop") == 2);
  CHECK(count(pingpong, "v_mfma_f32_32x32x16_bf16 x8") == 8);
}
