// The emulator reports missing wait states (hazards the hardware does not
// interlock) with the rule, the wait needed and the producer; enough s_nops
// silence it.
#include <catch2/catch.hpp>

#include "emulator_test_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

std::string hazards_of(const std::string& body, uint32_t lds = 0) {
  KernelShape shape;
  shape.vgprs = 64;
  shape.accum_offset = 32;
  shape.lds = lds;
  const TestKernel k = TestKernel::build(body + "\n  s_endpgm\n", shape);
  Args args;
  return race_text(run(k, args.dispatch(), instant()));
}

std::string mfma_then(const std::string& nops, const std::string& consumer) {
  return hazards_of("  v_mfma_f32_16x16x32_bf16 a[0:3], v[8:11], v[12:15], a[0:3]\n" + nops + "  " + consumer);
}

}  // namespace

TEST_CASE("an MFMA result read too early is a reported hazard", "[emulator][hazards]") {
  const std::string read = "v_accvgpr_read_b32 v1, a2";
  const std::string none = mfma_then("", read);
  CHECK(none.find("hazard: MFMA result read by a VALU/memory instruction needs 8 wait states after "
                  "'v_mfma_f32_16x16x32_bf16 a[0:3], v[8:11], v[12:15], a[0:3]' at 0x0, only 0 passed") !=
        std::string::npos);
  CHECK(mfma_then("  s_nop 6\n", read).find("only 7 passed") != std::string::npos);
  CHECK(mfma_then("  s_nop 7\n", read).empty());
  CHECK(mfma_then("", "v_accvgpr_read_b32 v1, a4").empty());  // another register
  const std::string big = hazards_of("  v_mfma_f32_32x32x16_bf16 a[0:15], v[8:11], v[12:15], a[0:15]\n"
                                     "  s_nop 7\n  s_nop 2\n  v_accvgpr_read_b32 v1, a15");
  CHECK(big.find("needs 12 wait states") != std::string::npos);
  CHECK(big.find("only 11 passed") != std::string::npos);
}

TEST_CASE("back-to-back accumulation needs no wait, a different SrcC does", "[emulator][hazards]") {
  CHECK(mfma_then("", "v_mfma_f32_16x16x32_bf16 a[0:3], v[16:19], v[12:15], a[0:3]").empty());
  CHECK(mfma_then("", "v_mfma_f32_16x16x32_bf16 a[4:7], v[16:19], v[12:15], a[2:5]").find(
            "overlapping, different SrcC needs 6") != std::string::npos);
}

TEST_CASE("a VALU result read by an MFMA needs 2 wait states", "[emulator][hazards]") {
  const std::string body = "  v_mov_b32 v9, 0\n";
  const std::string mfma = "  v_mfma_f32_16x16x32_bf16 a[0:3], v[8:11], v[12:15], a[0:3]\n  s_nop 7\n";
  CHECK(hazards_of(body + mfma).find("VALU result read by an MFMA needs 2") != std::string::npos);
  CHECK(hazards_of(body + "  s_nop 1\n" + mfma).empty());
}

TEST_CASE("M0 written just before an LDS-DMA load is a reported hazard", "[emulator][hazards]") {
  // An all-zero V# makes every lane out of range: the load writes zeros to LDS.
  const std::string setup = "  s_mov_b64 s[4:5], 0\n  s_mov_b64 s[6:7], 0\n  v_mov_b32 v1, 0\n";
  const std::string load = "  buffer_load_dwordx4 v1, s[4:7], 0 offen lds\n  s_waitcnt vmcnt(0)";
  CHECK(hazards_of(setup + "  s_mov_b32 m0, 0\n" + load, 1024).find("M0 written by SALU just before LDS-DMA needs 1") !=
        std::string::npos);
  CHECK(hazards_of(setup + "  s_mov_b32 m0, 0\n  s_nop 0\n" + load, 1024).empty());
}
