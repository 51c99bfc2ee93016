// emulator_unsupported: what the emulator cannot execute, known before running.
#include <catch2/catch.hpp>

#include "cdna4/gemm.hpp"
#include "cdna4/runtime.hpp"
#include "emulator_test_kernel.hpp"
#include "foreign/hip_build.hpp"
#include "schedule_test_support.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

std::vector<UnsupportedInstruction> unsupported_in(const std::string& body) {
  return emulator_unsupported(Kernel::from_hsaco(TestKernel::build(body).hsaco));
}

}  // namespace

TEST_CASE("emulator_unsupported groups reachable unsupported instructions with counts", "[emulator][unsupported]") {
  // Unreachable code (jumped over, or after s_endpgm: data and s_code_end fill) does not count.
  const auto found = unsupported_in(R"(
  s_ttracedata
  v_mov_b32 v1, 0
  s_trap 2
  s_cmp_eq_u32 s2, 0
  s_cbranch_scc1 skip
  s_ttracedata
skip:
  s_branch over
  s_trap 2
  s_ttracedata
over:
  s_endpgm
  s_ttracedata
  .long 0xffffffff
  .fill 4, 4, 0xbf9f0000
)");
  REQUIRE(found.size() == 2);
  CHECK(found[0].opcode.starts_with("S_TTRACEDATA"));
  CHECK(found[0].disassembly == "s_ttracedata");
  CHECK(found[0].reason == "unsupported instruction");
  CHECK(found[0].count == 2);
  CHECK(found[0].first_pc == 0);
  CHECK(found[1].opcode.starts_with("S_TRAP"));
  CHECK(found[1].count == 1);
  CHECK(found[1].first_pc == 8);
}

TEST_CASE("emulator_unsupported is empty for a kernel the emulator can run", "[emulator][unsupported]") {
  CHECK(unsupported_in("  v_mov_b32 v1, 0\n  s_endpgm\n").empty());
}

TEST_CASE("the emulator can execute every instruction of the shipped GEMM kernels", "[emulator][unsupported][gemm]") {
  for (const auto& file : schedule_test::shipped_files()) {
    const Schedule s = schedule_test::load(file);
    for (OutType out : {OutType::f32, OutType::bf16}) {
      GemmShape shape;
      shape.m = 2 * s.tile_m + 1;
      shape.n = s.tile_n + 3;
      shape.k = 3 * s.tile_k;
      shape.out = out;
      const GemmKernel k = compile(s, shape);
      INFO(s.name << " " << shape.to_string());
      for (const auto& u : emulator_unsupported(k.kernel)) FAIL_CHECK(u.disassembly << ": " << u.reason);
    }
  }
}

TEST_CASE("the emulator can execute every instruction of the foreign HIP kernels", "[emulator][unsupported][foreign]") {
  for (const char* name : {"vector_add", "naive_gemm", "tiled_gemm"}) {
    INFO(name);
    const Kernel kernel = Kernel::from_hsaco(test::compile_foreign_hip(name));
    for (const auto& u : emulator_unsupported(kernel)) FAIL_CHECK(u.disassembly << ": " << u.reason);
  }
}
