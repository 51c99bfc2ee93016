// gfx950's f8f6f4 MFMAs on the emulator: every A / B format pair of every kind,
// with distinct pseudo-random finite codes and (scaled kinds) distinct scales
// per lane and byte, every element of D checked against the layout and the
// policy as emulator_f8f6f4_kernel.hpp writes them out; the assembled bytes go
// through LLVM's disassembler, so each instruction form is decoded too.
#include <catch2/catch.hpp>

#include "emulator_f8f6f4_kernel.hpp"
#include "runtime/emulator/handler_registry.hpp"

using namespace cdna4;
using namespace cdna4::f8f6f4test;

namespace {

uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  return x ^ (x >> 16);
}

// A finite code of format f chosen by `seed`; bf8 exponents stay in [-7, 7] so
// that partial sums keep clear of fp32's range.
uint32_t some_finite_code(const Format& f, uint32_t seed) {
  for (uint32_t s = seed;; s = mix(s + 1)) {
    uint32_t code = mix(s) & ((1u << f.bits) - 1);
    if (f.code == 1) code = (code & 0x83) | ((8 + mix(s ^ 0x55) % 15) << 2);
    if (finite_code(f, code)) return code;
  }
}

// Distinct inputs: codes hashed from position, C from position, scales 2^-4..2^4
// distinct per (row or column, block).
Problem distinct_problem(const Kind& k, const Format& fa, const Format& fb, int byte_a, int byte_b) {
  Problem p(k, fa, fb);
  for (int i = 0; i < k.m; ++i)
    for (int x = 0; x < k.k; ++x) p.a[i * k.k + x] = some_finite_code(fa, uint32_t(i * 1000 + x + 17 * fa.code));
  for (int x = 0; x < k.k; ++x)
    for (int j = 0; j < k.n; ++j)
      p.b[x * k.n + j] = some_finite_code(fb, uint32_t(500000 + x * 1000 + j + 31 * fb.code));
  for (int i = 0; i < k.m * k.n; ++i) p.c[i] = emutest::bits(float(i % 97) * 0.375f - 12.0f);
  if (k.scaled) {
    for (size_t i = 0; i < p.scale_a.size(); ++i) p.scale_a[i] = uint8_t(123 + (i * 5) % 9);
    for (size_t i = 0; i < p.scale_b.size(); ++i) p.scale_b[i] = uint8_t(123 + (i * 7 + 3) % 9);
  }
  p.byte_a = byte_a;
  p.byte_b = byte_b;
  return p;
}

void check_all_elements(const Problem& p) {
  emu::RunStats stats;
  const std::vector<uint32_t> d = run_mfma(p, &stats);
  INFO(p.kind->mnemonic << " A " << p.fa->name << " B " << p.fb->name << " scale bytes " << p.byte_a << "/" << p.byte_b
                        << (p.agpr ? " (AGPR C/D)" : " (VGPR C/D)"));
  INFO(emutest::race_text(stats));
  CHECK(stats.races.empty());
  CHECK(stats.mfma_macs == uint64_t(p.kind->m) * p.kind->n * p.kind->k);
  for (int i = 0; i < p.kind->m; ++i)
    for (int j = 0; j < p.kind->n; ++j) {
      INFO("D[" << i << "][" << j << "]");
      REQUIRE(d[i * p.kind->n + j] == expected_d(p, i, j));
    }
}

}  // namespace

TEST_CASE("f8f6f4 MFMAs: every format pair, every element of D", "[emulator][mfma][f8f6f4]") {
  for (const Kind& k : kKinds)
    for (const Format& fa : kFormats)
      for (const Format& fb : kFormats) {
        const int byte = (fa.code + 2 * fb.code) % 4;
        Problem p = distinct_problem(k, fa, fb, byte, 3 - byte);
        p.agpr = (fa.code + fb.code) % 2;
        check_all_elements(p);
      }
}

TEST_CASE("scaled f8f6f4 MFMAs: op_sel / op_sel_hi pick each byte of each scale VGPR", "[emulator][mfma][f8f6f4]") {
  for (const Kind& k : kKinds) {
    if (!k.scaled) continue;
    for (int byte_a = 0; byte_a < 4; ++byte_a)
      for (int byte_b = 0; byte_b < 4; ++byte_b)
        check_all_elements(distinct_problem(k, kFormats[0], kFormats[4], byte_a, byte_b));
  }
}

TEST_CASE("f8f6f4 MFMAs: reading D early is a hazard with the formats' passes", "[emulator][mfma][f8f6f4][hazards]") {
  for (const Kind& k : kKinds)
    for (const auto& [fa, fb] : {std::pair{kFormats[0], kFormats[0]},
                                 {kFormats[4], kFormats[1]},
                                 {kFormats[2], kFormats[4]},
                                 {kFormats[3], kFormats[3]}}) {
      const Problem p(k, fa, fb);
      const int needed = fa.bits == 8 || fb.bits == 8 ? k.wait_8bit : k.wait_small;
      const int last = out_regs(k) - 1;
      auto hazards = [&](int nops) {
        std::string body = mfma_text(p, fmt::format("a[0:{}]", last));
        for (int left = nops; left > 0; left -= 8) body += fmt::format("  s_nop {}\n", std::min(left, 8) - 1);
        emutest::KernelShape shape;
        shape.vgprs = 64;
        shape.accum_offset = 48;
        const auto kernel =
            emutest::TestKernel::build(body + fmt::format("  v_accvgpr_read_b32 v1, a{}\n  s_endpgm\n", last), shape);
        emutest::Args args;
        return emutest::race_text(emutest::run(kernel, args.dispatch(), emutest::instant()));
      };
      INFO(k.mnemonic << " A " << fa.name << " B " << fb.name);
      CHECK(hazards(needed - 1).find(fmt::format("needs {} wait states", needed)) != std::string::npos);
      CHECK(hazards(needed).empty());
    }
}

TEST_CASE("f8f6f4 MFMAs: LLVM's register-tuple opcode names reduce to the table's", "[emulator][mfma][f8f6f4]") {
  CHECK(emu::base_opcode_name("V_MFMA_SCALE_F32_16X16X128_F8F6F4_f4_f6_gfx940_acd") ==
        "V_MFMA_SCALE_F32_16X16X128_F8F6F4");
  CHECK(emu::base_opcode_name("V_MFMA_F32_32X32X64_F8F6F4_f8_f4_gfx940_vcd") == "V_MFMA_F32_32X32X64_F8F6F4");
  CHECK(emu::base_opcode_name("V_MFMA_F32_16X16X32_BF16_gfx940_acd") == "V_MFMA_F32_16X16X32_BF16");
}

TEST_CASE("f8f6f4 MFMAs: cbsz / blgp codes 5-7 stop the run", "[emulator][mfma][f8f6f4]") {
  const auto kernel = emutest::TestKernel::build(
      "  v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:7], v[8:15], a[0:3] cbsz:5 blgp:0\n  s_endpgm\n",
      emutest::KernelShape{.vgprs = 64, .accum_offset = 48});
  emutest::Args args;
  CHECK_THROWS_WITH(emutest::run(kernel, args.dispatch(), emutest::instant()),
                    Catch::Contains("cbsz/blgp other than the f8f6f4 format codes 0-4"));
}
