// Every hand-written example in tools/examples assembles, links and computes
// its documented result on the emulator, in both completion modes.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <random>

#include "cdna4/reference.hpp"
#include "cdna4/runtime.hpp"
#include "codegen/assembler.hpp"
#include "support/process.hpp"

using namespace cdna4;

namespace {

// C[16x16] = A[16x128] * Bt[16x128]^T with small integers: exact in fp32 under
// any summation order, so the check holds on hardware too.
void check_mfma_16x16x128(const Kernel& kernel) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> small(-4, 4);
  std::vector<uint16_t> a(16 * 128), bt(16 * 128);
  for (auto& x : a) x = float_to_bf16(float(small(rng)));
  for (auto& x : bt) x = float_to_bf16(float(small(rng)));
  std::vector<float> want(256, 0.0f);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j)
      for (int k = 0; k < 128; ++k) want[i * 16 + j] += bf16_to_float(a[i * 128 + k]) * bf16_to_float(bt[j * 128 + k]);
  Device dev = Device::emulator();
  Buffer da = dev.alloc(a.size() * 2), db = dev.alloc(bt.size() * 2), dc = dev.alloc(256 * 4);
  da.upload(a);
  db.upload(bt);
  for (bool instant : {false, true}) {
    dc.fill_zero();
    LaunchOptions o;
    o.instant_completion = instant;
    dev.launch(kernel, {1}, {64}, {da, db, dc}, o);  // throws on a race or hazard
    CHECK(dc.download<float>() == want);
  }
}

const std::map<std::string, std::function<void(const Kernel&)>> kExamples = {
    {"mfma_16x16x128.s", check_mfma_16x16x128},
};

}  // namespace

TEST_CASE("every example in tools/examples runs on the emulator with its documented result", "[examples]") {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(test::source_path("tools/examples")))
    if (e.path().extension() == ".s") files.push_back(e.path().filename().string());
  REQUIRE_FALSE(files.empty());
  for (const std::string& file : files) {
    INFO(file << " needs an entry in kExamples with its result check");
    REQUIRE(kExamples.count(file) == 1);
    const std::string path = test::source_path("tools/examples/" + file);
    const Kernel kernel = Kernel::from_hsaco(codegen::build_hsaco(test::read_text_file(path), path));
    kExamples.at(file)(kernel);
  }
}
