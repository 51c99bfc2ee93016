// --timeline FILE.svg: the steady-state window, a well-formed self-contained
// SVG, and a headless-Chromium screenshot of it that is not blank.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>

#include "../tools/output_file.hpp"
#include "../tools/timeline_svg.hpp"
#include "cdna4/gemm.hpp"
#include "cdna4/runtime.hpp"
#include "codegen/assembler.hpp"
#include "emulator_test_kernel.hpp"
#include "gemm_support.hpp"
#include "support/png.hpp"
#include "support/process.hpp"

using namespace cdna4;

namespace {

std::string tool(const char* name) { return std::string(CDNA4_BINARY_DIR) + "/" + name; }
std::string schedule_path(const char* name) { return test::source_path(std::string("schedules/") + name); }

// The pingpong schedule on the model device, timeline on: 16 K-steps of one workgroup.
const ModelReport& pingpong_report() {
  static const ModelReport report = [] {
    EmulatorConfig config;
    config.model_only = true;
    config.model_timeline = true;
    Device device = Device::open("model", config);
    const int64_t m = 256, n = 256, k = 1024;
    const std::vector<uint16_t> a(size_t(m * k), 0x3f80), b(size_t(k * n), 0x3f80);
    const Schedule s = load_schedule(schedule_path("pingpong_256x256x64_w8.json"));
    return *run_gemm(device, s, test::problem(m, n, k, test::bytes_of(a), test::bytes_of(b), OutType::f32)).launch.model;
  }();
  return report;
}

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':'; }

// "" when `xml` is well-formed as far as the renderer's output goes: one root,
// every element closed in order, quoted attributes, only predefined entities.
std::string xml_problem(const std::string& xml) {
  auto entity_ok = [&](size_t at) {
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
      if (xml.compare(at, std::strlen(e), e) == 0) return true;
    return false;
  };
  std::vector<std::string> open;
  int roots = 0;
  for (size_t i = 0; i < xml.size();) {
    const std::string where = " at byte " + std::to_string(i);
    if (xml[i] == '&' && !entity_ok(i)) return "bad entity" + where;
    if (xml[i] != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(xml[i]))) return "text outside the root" + where;
      ++i;
      continue;
    }
    if (xml.compare(i, 2, "</") == 0) {
      const size_t end = xml.find('>', i);
      if (end == std::string::npos) return "unterminated end tag" + where;
      const std::string name = xml.substr(i + 2, end - i - 2);
      if (open.empty() || open.back() != name) return "</" + name + "> does not close the open element" + where;
      open.pop_back();
      i = end + 1;
      continue;
    }
    size_t j = i + 1;
    while (j < xml.size() && name_char(xml[j])) ++j;
    const std::string name = xml.substr(i + 1, j - i - 1);
    if (name.empty()) return "'<' without a tag name" + where;
    if (open.empty() && ++roots > 1) return "a second root element" + where;
    for (;;) {
      const size_t before = j;
      while (j < xml.size() && std::isspace(static_cast<unsigned char>(xml[j]))) ++j;
      if (j >= xml.size()) return "unterminated <" + name + where;
      if (xml.compare(j, 2, "/>") == 0) {
        j += 2;
        break;
      }
      if (xml[j] == '>') {
        open.push_back(name);
        ++j;
        break;
      }
      size_t k = j;
      while (k < xml.size() && name_char(xml[k])) ++k;
      if (k == j || j == before || k + 1 >= xml.size() || xml[k] != '=' || (xml[k + 1] != '"' && xml[k + 1] != '\''))
        return "bad attribute in <" + name + where;
      const size_t close = xml.find(xml[k + 1], k + 2);
      if (close == std::string::npos) return "unterminated attribute in <" + name + where;
      for (size_t p = k + 2; p < close; ++p)
        if (xml[p] == '<' || (xml[p] == '&' && !entity_ok(p))) return "bad attribute value in <" + name + where;
      j = close + 1;
    }
    i = j;
  }
  if (!open.empty()) return "<" + open.back() + "> is not closed";
  return roots == 1 ? "" : "no root element";
}

double attribute(const std::string& tag, const std::string& name) {
  const size_t at = tag.find(" " + name + "=\"");
  REQUIRE(at != std::string::npos);
  return std::stod(tag.substr(at + name.size() + 3));
}

struct Rect {
  double x, y, width, height;
};

// The rectangles of class `kind` in the row of every wave, by SIMD.
std::map<int, std::vector<Rect>> rects_by_simd(const std::string& svg, const std::string& kind) {
  std::map<int, std::vector<Rect>> out;
  for (size_t g = svg.find("<g id=\"simd-"); g != std::string::npos; g = svg.find("<g id=\"simd-", g + 1)) {
    const int simd = std::stoi(svg.substr(g + 12));
    const size_t end = svg.find("</g>", g);
    for (size_t r = svg.find("<rect class=\"" + kind + "\"", g); r < end; r = svg.find("<rect class=\"" + kind + "\"", r + 1)) {
      const std::string tag = svg.substr(r, svg.find('>', r) - r);
      out[simd].push_back({attribute(tag, "x"), attribute(tag, "y"), attribute(tag, "width"), attribute(tag, "height")});
    }
  }
  return out;
}

std::string find_chromium() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && access((dir + "/chromium").c_str(), X_OK) == 0) return dir + "/chromium";
  return "";
}

}  // namespace

TEST_CASE("timeline SVG: two steady-state trips of pingpong, well-formed, MFMAs on every SIMD", "[model][svg]") {
  const ModelReport& m = pingpong_report();
  REQUIRE_FALSE(m.timeline.empty());
  uint64_t run_end = 0;
  for (const ModelSlice& s : m.timeline) run_end = std::max(run_end, s.end);
  const tools::TimelineWindow w = tools::steady_state_window(m);
  REQUIRE(w.steady_state);
  CHECK(w.workgroup == 0);
  CHECK(w.wave == 0);
  REQUIRE(w.trip_starts.size() == 3);
  CHECK(w.trips >= 4);
  CHECK(w.first_trip >= 1);  // not the first trip: the prologue is over
  CHECK(w.first_trip + 2 < w.trips);
  CHECK(w.begin == w.trip_starts.front());
  CHECK(w.end == w.trip_starts.back());
  CHECK(w.begin > 0);
  CHECK(w.end <= run_end);
  // Every boundary is wave 0 issuing the loop-head MFMA.
  for (uint64_t t : w.trip_starts) {
    bool found = false;
    for (const ModelSlice& s : m.timeline)
      found |= s.kind == ModelSliceKind::mfma && s.wave == 0 && s.pc == w.loop_pc && s.begin == t;
    CHECK(found);
  }

  const std::string svg = tools::timeline_svg(m, "pingpong <256x256> & \"friends\"");
  INFO(svg.substr(0, 600));
  CHECK(xml_problem(svg) == "");
  CHECK_THAT(svg, Catch::StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK_THAT(svg, Catch::Contains("modeled gfx950 timeline: pingpong &lt;256x256&gt; &amp; &quot;friends&quot;"));
  CHECK_THAT(svg, !Catch::Contains("href") && !Catch::Contains("<script") && !Catch::Contains("<style") &&
                      !Catch::Contains("@import") && !Catch::Contains("url("));
  const auto mfmas = rects_by_simd(svg, "mfma");
  for (int simd = 0; simd < 4; ++simd) {
    INFO("SIMD " << simd);
    CHECK(mfmas.count(simd) == 1);
    CHECK_THAT(svg, Catch::Contains(fmt::format(">SIMD {} / wg 0 wave {}<", simd, simd)) &&
                        Catch::Contains(fmt::format(">SIMD {} / wg 0 wave {}<", simd, simd + 4)));
  }
  // Nothing is drawn outside the plot (190 px of labels, 1190 px of window).
  for (const char* kind : {"mfma", "global_load", "lds", "wait_vmcnt", "barrier"})
    for (const auto& [simd, rects] : rects_by_simd(svg, kind))
      for (const Rect& r : rects) {
        CHECK(r.x >= 190 - 0.01);
        CHECK(r.x + r.width <= 190 + 1190 + 0.61);
      }

  CHECK(xml_problem(tools::timeline_svg(ModelReport{}, "empty")) == "");
  CHECK(tools::xml_escape("a\x01\xc3\xa9<") == "a???&lt;");
  CHECK(xml_problem("<a><b></a></b>") != "");
  CHECK(xml_problem("<a x=\"1\"y=\"2\"/>") != "");
}

TEST_CASE("timeline SVG screenshot: headless Chromium draws the pingpong timeline, not blank", "[model][svg][chromium]") {
  const std::string chromium = find_chromium();
  if (chromium.empty())
    FAIL("chromium is not on PATH: this test renders the SVG with headless Chromium "
         "(Debian package chromium; tools/install-deps.sh installs it)");
  test::TempDir dir;
  const std::string svg = tools::timeline_svg(pingpong_report(), "pingpong_256x256x64_w8 256x256x1024");
  tools::write_file_whole(dir.file("timeline.svg"), svg);
  const int width = int(attribute(svg.substr(0, svg.find('>')), "width"));
  const int height = int(attribute(svg.substr(0, svg.find('>')), "height"));
  const auto shot = test::run_command({chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                       "--force-device-scale-factor=1", "--user-data-dir=" + dir.file("profile"),
                                       "--screenshot=" + dir.file("shot.png"),
                                       fmt::format("--window-size={},{}", width, height),
                                       "file://" + dir.file("timeline.svg")});
  INFO(shot.output);
  REQUIRE(std::filesystem::exists(dir.file("shot.png")));
  const test::Image image = test::decode_png(test::read_binary(dir.file("shot.png")));
  REQUIRE(image.width == uint32_t(width));
  REQUIRE(image.height == uint32_t(height));

  size_t ink = 0;
  std::map<int, size_t> colors;  // 3 bits a channel
  for (const auto& p : image.pixels) {
    ink += p[0] < 240 || p[1] < 240 || p[2] < 240;
    ++colors[(p[0] >> 5) << 6 | (p[1] >> 5) << 3 | (p[2] >> 5)];
  }
  const double ink_share = double(ink) / double(image.pixels.size());
  CHECK(ink_share > 0.05);
  size_t distinct = 0;
  for (const auto& [color, count] : colors) distinct += count >= 50;
  CHECK(distinct >= 6);

  // Each MFMA rectangle of the SVG is MFMA blue (#2563eb) where Chromium drew it.
  auto mfma_blue = [](std::array<uint8_t, 3> p) {
    return std::abs(p[0] - 0x25) < 24 && std::abs(p[1] - 0x63) < 24 && std::abs(p[2] - 0xeb) < 24;
  };
  for (const auto& [simd, rects] : rects_by_simd(svg, "mfma")) {
    size_t wide = 0, blue = 0;
    for (const Rect& r : rects) {
      if (r.width < 3) continue;
      ++wide;
      blue += mfma_blue(image.at(uint32_t(r.x + r.width / 2), uint32_t(r.y + r.height / 2)));
    }
    INFO("SIMD " << simd << ": " << blue << " of " << wide << " MFMA rectangles blue in the screenshot");
    CHECK(wide > 0);
    CHECK(blue * 20 >= wide * 19);
  }
}

TEST_CASE("cdna4-gemm and cdna4-run --timeline: with --trace, only on the model device, no partial file",
          "[model][svg][cli]") {
  test::TempDir dir;
  const std::string s = schedule_path("pingpong_256x256x64_w8.json");
  auto both = test::run_command({tool("cdna4-gemm"), s, "--shape", "256x256x512", "--device", "model", "--model-only",
                                 "--trace", dir.file("t.json"), "--timeline", dir.file("t.svg")});
  INFO(both.output);
  REQUIRE(both.status == 0);
  const std::string svg = test::read_text_file(dir.file("t.svg"));
  CHECK(xml_problem(svg) == "");
  CHECK_THAT(svg, Catch::Contains("modeled gfx950 timeline: pingpong_256x256x64_w8 256x256x512"));
  CHECK_THAT(test::read_text_file(dir.file("t.json")), Catch::Contains("\"traceEvents\""));
  CHECK(!std::filesystem::exists(dir.file("t.svg.partial")));
  CHECK(dir.entry_count() == 2);  // t.json and t.svg, no temporary beside them

  auto refused = test::run_command({tool("cdna4-gemm"), s, "--shape", "256x256x128", "--timeline", dir.file("u.svg")});
  CHECK(refused.status == 2);
  CHECK_THAT(refused.output, Catch::Contains("--timeline needs --device model"));
  auto unwritable = test::run_command({tool("cdna4-gemm"), s, "--shape", "256x256x128", "--device", "model",
                                       "--model-only", "--timeline", dir.file("missing/u.svg")});
  CHECK(unwritable.status == 1);
  CHECK_THAT(unwritable.output, Catch::Contains("cannot write " + dir.file("missing/u.svg")));

  // No loop: the window is the whole run.
  test::write_binary(dir.file("k.hsaco"), emutest::mfma_only_hsaco());
  auto run = test::run_command({tool("cdna4-run"), dir.file("k.hsaco"), "--device", "model", "--grid", "1", "--block",
                                "64", "--kernarg-size", "64", "--timeline", dir.file("k.svg")});
  REQUIRE(run.status == 0);
  const std::string k_svg = test::read_text_file(dir.file("k.svg"));
  CHECK(xml_problem(k_svg) == "");
  CHECK_THAT(k_svg, Catch::Contains("modeled gfx950 timeline: k<") &&
                        Catch::Contains("modeled clocks 0-64: the whole run (no MFMA repeats)") &&
                        Catch::Contains("<rect class=\"mfma\""));
  auto run_refused = test::run_command({tool("cdna4-run"), dir.file("k.hsaco"), "--grid", "1", "--block", "64",
                                        "--kernarg-size", "64", "--timeline", dir.file("u.svg")});
  CHECK(run_refused.status == 2);
  CHECK_THAT(run_refused.output, Catch::Contains("--timeline needs --device model"));
  CHECK(!std::filesystem::exists(dir.file("u.svg")));
}
