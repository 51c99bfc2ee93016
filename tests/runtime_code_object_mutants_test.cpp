// The code-object reader on damaged input: hundreds of deterministic mutants of
// real code objects (their metadata note, their ELF structures, their kernel
// descriptors) each either load or throw cdna4::Error, never crash.
#include <catch2/catch.hpp>

#include <random>

#include "cdna4/gemm.hpp"
#include "cdna4/runtime.hpp"
#include "code_object_mutants.hpp"
#include "codegen/assembler.hpp"
#include "foreign/hip_build.hpp"
#include "runtime/kernarg.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"

using namespace cdna4;

namespace {

struct Sample {
  std::string label;
  std::vector<uint8_t> hsaco;
};

std::vector<Sample> samples() {
  std::vector<Sample> out;
  GemmKernel gemm = compile(load_schedule(std::string(CDNA4_SOURCE_DIR) + "/schedules/baseline_256x256x64_w8.json"),
                            parse_shape("256x256x64"));
  out.push_back({"codegen gemm", gemm.kernel.hsaco()});
  out.push_back({"tools/examples/mfma_16x16x128.s",
                 codegen::build_hsaco(test::read_text_file(std::string(CDNA4_SOURCE_DIR) +
                                                           "/tools/examples/mfma_16x16x128.s"))});
  out.push_back({"clang HIP vector_add", test::compile_foreign_hip("vector_add")});
  return out;
}

// Loads `bytes` the way cdna4-run does, lays out a kernarg segment for every
// kernel; only cdna4::Error may come out. Returns whether it loaded.
bool load_or_refuse(const std::vector<uint8_t>& bytes) {
  try {
    CodeObject co = CodeObject::read(bytes);
    (void)co.metadata_yaml();
    for (const KernelInfo& k : co.kernels()) {
      Kernel kernel = Kernel::from_hsaco(bytes, k.name);
      try {
        auto g = rt::dispatch_geometry(kernel.info(), {2}, {64}, GridUnit::Workgroups);
        (void)rt::build_kernarg_block(kernel.info(), KernargBlock(0), g, {});
      } catch (const Error&) {
      }
    }
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

TEST_CASE("code object: a map key turned into false is refused, not printed", "[code-object]") {
  for (const Sample& s : samples()) {
    INFO(s.label);
    auto note = test::metadata_note_range(s.hsaco);
    REQUIRE(note.end > note.begin);
    // The tag of the first ".name" key (a 5-byte fixstr, 0xa5) becomes false (0xc2).
    std::vector<uint8_t> bytes = s.hsaco;
    const std::vector<uint8_t> key = {0xa5, '.', 'n', 'a', 'm', 'e'};
    auto at = std::search(bytes.begin() + note.begin, bytes.begin() + note.end, key.begin(), key.end());
    REQUIRE(at != bytes.begin() + note.end);
    *at = 0xc2;
    const std::string message = test::error_of([&] { CodeObject::read(bytes); });
    CHECK_THAT(message, Catch::StartsWith("code object: metadata: map key is a boolean; metadata keys are strings"));
    const std::string from_file = test::error_of([&] { Kernel::from_hsaco(bytes); });
    CHECK(from_file != "no error");
  }
}

TEST_CASE("code object: mutants of the metadata note load or throw cdna4::Error", "[code-object]") {
  int loaded = 0, refused = 0;
  for (const Sample& s : samples()) {
    const auto note = test::metadata_note_range(s.hsaco);
    std::mt19937_64 rng(0x5eed0001);
    for (int i = 0; i < 300; ++i) (load_or_refuse(test::mutate(s.hsaco, note, rng)) ? loaded : refused)++;
  }
  CHECK(loaded + refused == 900);
  CHECK(refused > 300);
}

TEST_CASE("code object: mutants of the ELF structures and descriptors load or throw cdna4::Error",
          "[code-object]") {
  int loaded = 0, refused = 0;
  for (const Sample& s : samples()) {
    auto ranges = test::elf_ranges(s.hsaco);
    const CodeObject original = CodeObject::read(s.hsaco);
    for (const KernelInfo& k : original.kernels()) {
      // Descriptor bytes are where a wrong size or entry offset does harm: mutate them more often.
      auto d = test::descriptor_range(s.hsaco, k.name + ".kd");
      REQUIRE(d.end > d.begin);
      ranges.insert(ranges.end(), 4, d);
    }
    ranges.push_back({0, s.hsaco.size()});
    std::mt19937_64 rng(0x5eed0002);
    for (int i = 0; i < 300; ++i) {
      const auto& range = ranges[rng() % ranges.size()];
      (load_or_refuse(test::mutate(s.hsaco, range, rng)) ? loaded : refused)++;
    }
  }
  CHECK(loaded + refused == 900);
  CHECK(refused > 100);
  CHECK(loaded > 100);  // most section bytes (code) do not matter to the reader
}
