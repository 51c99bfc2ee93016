// Every code object the shipped schedules compile to, recorded by digest: a change
// to how the code generator is organised must not change a single byte it emits.
// After a deliberate change to the emitted code, rewrite the record with
//   CDNA4_WRITE_DIGESTS=1 build/cdna4_tests "[digest]"
// and say in the commit why the bytes moved.
#include <catch2/catch.hpp>

#include <cdna4/gemm.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "schedule_test_support.hpp"

using namespace cdna4;

namespace {

uint64_t fnv1a(const std::vector<uint8_t>& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : bytes) h = (h ^ b) * 1099511628211ull;
  return h;
}

struct Variant {
  std::string name;
  GemmShape shape;
  CompileOptions options;
};

// Shapes, output types, layouts, fused epilogues and a strided batch.
std::vector<Variant> variants(const Schedule& s) {
  std::vector<Variant> out;
  const int granule = k_granule(s);
  auto shape = [&](const char* text, OutType type) {
    GemmShape sh = parse_shape(text);
    sh.k = (sh.k + granule - 1) / granule * granule;
    sh.out = type;
    return sh;
  };
  for (const char* text : {"256x256x64", "257x130x96", "1024x1024x1024"})
    for (OutType type : {OutType::f32, OutType::bf16, OutType::f16})
      out.push_back({fmt::format("{} {}", text, to_string(type)), shape(text, type), {}});
  for (Layout layout : {Layout::nn, Layout::nt, Layout::tn, Layout::tt}) {
    Variant v{fmt::format("288x128x128 layout {}", to_string(layout)), shape("288x128x128", OutType::bf16), {}};
    v.options.layout = layout;
    out.push_back(v);
  }
  const Epilogue epilogues[] = {
      {std::nullopt, BiasDim::n, DataType::f32, Activation::relu},
      {DataType::bf16, BiasDim::m, DataType::bf16, Activation::gelu},
      {DataType::f32, BiasDim::none, DataType::f32, Activation::silu},
      {std::nullopt, BiasDim::none, DataType::f32, Activation::none},
  };
  for (const Epilogue& e : epilogues) {
    Variant v{fmt::format("257x130x96 epilogue {}", to_string(e.activation)), shape("257x130x96", OutType::bf16), {}};
    v.options.epilogue = e;
    out.push_back(v);
  }
  Variant batch{"256x128x128 batch 3", shape("256x128x128", OutType::f32), {}};
  batch.shape.batch = 3;
  batch.shape.stride_a = 33024;
  batch.shape.stride_c = 32800;
  out.push_back(batch);
  return out;
}

std::string digests_path() { return std::string(CDNA4_SOURCE_DIR) + "/tests/data/code_object_digests.txt"; }

}  // namespace

TEST_CASE("code objects: every shipped schedule compiles to its recorded bytes", "[digest]") {
  std::ostringstream now;
  int objects = 0;
  for (const auto& file : schedule_test::shipped_files()) {
    const Schedule schedule = schedule_test::load(file);
    for (Variant& v : variants(schedule)) {
      v.options.use_cache = false;
      std::string line;
      try {
        const GemmKernel k = compile(schedule, v.shape, v.options);
        line = fmt::format("{:016x} {:6}", fnv1a(k.kernel.hsaco()), k.kernel.hsaco().size());
        ++objects;
      } catch (const std::exception& e) {
        line = fmt::format("refused: {}", e.what());
      }
      now << file << " | " << v.name << " | " << line << "\n";
    }
  }
  if (std::getenv("CDNA4_WRITE_DIGESTS")) {
    std::ofstream(digests_path()) << now.str();
    WARN("wrote " << digests_path());
  }
  const std::string recorded = schedule_test::read_text(digests_path());
  REQUIRE(!recorded.empty());
  CHECK(objects > 300);
  // Line by line, so a failure names the schedule and variant.
  std::istringstream a(recorded), b(now.str());
  std::string x, y;
  int line = 0;
  while (true) {
    const bool more_a = bool(std::getline(a, x)), more_b = bool(std::getline(b, y));
    if (!more_a && !more_b) break;
    ++line;
    INFO("line " << line);
    CHECK(y == x);
    x.clear(), y.clear();
  }
}
