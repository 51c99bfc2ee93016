// Cases where the emulator's fast paths must behave exactly as the per-dword,
// per-lane paths they shortcut: outputs, race and hazard reports, and errors.
#include <catch2/catch.hpp>

#include "emulator_test_kernel.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

// s[8:11] = V# over kernarg buffer 0 with num_records = 4096.
const char* kResource = R"(
  s_load_dwordx2 s[8:9], s[0:1], 0
  s_waitcnt lgkmcnt(0)
  s_and_b32 s9, s9, 0xffff
  s_mov_b32 s10, 4096
  s_mov_b32 s11, 0x00020000
)";

std::string lds_dma_past_the_end(const char* load) {
  return test::error_of([&] {
    std::string body = std::string(kResource) + fmt::format(R"(
  v_lshlrev_b32 v4, 4, v0
  s_mov_b32 m0, 8
  s_nop 0
  {} v4, s[8:11], 0 offen lds
  s_waitcnt vmcnt(0)
  s_endpgm
)",
                                                                  load);
    KernelShape shape;
    shape.lds = 1024;
    auto k = TestKernel::build(body, shape);
    std::vector<uint32_t> in(1024, 7);
    Args args;
    args.add(in);
    run(k, args.dispatch(), randomized(1));
  });
}

}  // namespace

// Lane 63 writes LDS at 8 + 63 * 16 = 1016: its third dword (0x400) is the first
// one past the 1024 bytes, and the error names that dword, as for the dword form.
TEST_CASE("an LDS-DMA x3/x4 load past the end of LDS names the first dword outside it", "[emulator-review]") {
  for (const char* load : {"buffer_load_dwordx4", "buffer_load_dwordx3"}) {
    INFO(load);
    CHECK_THAT(lds_dma_past_the_end(load),
               Catch::Contains("LDS access of 4 bytes at 0x400 is outside the workgroup's 1024 bytes of LDS"));
  }
}
