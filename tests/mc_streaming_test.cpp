// Streaming MCInsts from instruction templates gives exactly the bytes of the text path.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <thread>

#include "cdna4/error.hpp"
#include "cdna4/gemm.hpp"
#include "codegen/assembler.hpp"
#include "codegen/gemm/lower_gemm.hpp"
#include "codegen/isa/code.hpp"
#include "codegen/kernel_descriptor.hpp"
#include "schedule_test_support.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using namespace cdna4::codegen::isa;
using cdna4::codegen::Bytes;
using cdna4::codegen::KernelSpec;

namespace {

Bytes text_object(const Code& code, const KernelSpec& spec, const std::string& name = "k.s") {
  return codegen::assemble(
      codegen::kernel_prologue_directives(spec) + code.text() + codegen::kernel_epilogue_directives(spec), name);
}

KernelSpec example_spec(const std::string& name) {
  KernelSpec spec;
  spec.name = name;
  spec.vgprs = 128;
  spec.agprs = 64;
  spec.sgprs = 40;
  spec.lds_bytes = 65536;
  spec.workgroup_size = 256;
  spec.workgroup_id_y = true;
  spec.args = {{"a"}, {"b"}, {"c"}};
  return spec;
}

// Every instruction the builder offers, with each kind of operand it takes:
// registers of every file and tuple size, specials, inline integers and floats,
// 16- and 32-bit literals (also negative ones), modifiers, forward and backward branches.
Code every_instruction_kind() {
  Code c;
  c.comment("entry");
  c.s_load_dwordx2(s(4, 2), s(0, 2), 0);
  c.s_load_dword(s(6), s(0, 2), 16);
  c.s_waitcnt(-1, 0);
  c.s_mov_b32(s(12), imm(4096));
  c.s_mov_b32(s(13), imm(-100));
  c.s_mov_b32(s(14), imm(0x3f800000));
  c.s_mov_b32(s(15), imm(0x00020000));
  c.s_mov_b32(m0, s(8));
  c.s_mov_b32(s(9), imm(-16));
  c.s_add_u32(s(16), s(4), imm(64));
  c.s_sub_u32(s(17), s(5), imm(0));
  c.s_add_i32(s(18), s(18), imm(0x12345678));
  c.s_sub_i32(s(19), s(19), imm(1));
  c.s_mul_i32(s(20), s(2), imm(256));
  c.s_lshl_b32(s(21), s(3), imm(8));
  c.s_lshr_b32(s(22), s(21), imm(4));
  c.s_and_b32(s(23), s(22), imm(0xffff));
  c.label("loop");
  c.s_cmp_ge_u32(s(2), imm(4));
  c.s_cbranch_scc1("done");
  c.v_mov_b32(v(0), imm(0));
  c.v_mov_b32(v(1), s(12));
  c.v_mov_b32(v(2), imm(0x40800000));
  c.v_mov_b32(v(3), imm(0xbf000000));
  c.v_add_u32(v(4), v(0), v(1));
  c.v_add_u32(v(4), imm(0x1000), v(4));
  c.v_sub_u32(v(5), s(12), v(4));
  c.v_and_b32(v(6), imm(63), v(0));
  c.v_and_b32(v(6), imm(0xffff0000), v(6));
  c.v_or_b32(v(7), v(6), v(5));
  c.v_lshlrev_b32(v(8), imm(4), v(7));
  c.v_lshrrev_b32(v(9), imm(16), v(8));
  c.v_mul_lo_u32(v(10), v(9), s(20));
  c.v_bfe_u32(v(11), v(0), imm(4), imm(2));
  c.v_add3_u32(v(12), v(11), v(10), s(21));
  c.v_cmp_gt_i32(s(13), v(12));
  c.v_cmp_u_f32(v(12), v(12));
  c.v_cndmask_b32(v(13), v(12), v(11));
  c.v_readfirstlane_b32(s(25), v(13));
  c.v_accvgpr_write_b32(a(0), v(13));
  c.v_accvgpr_write_b32(a(1), imm(0));
  c.v_accvgpr_read_b32(v(14), a(1));
  c.buffer_load_dwordx4_lds(v(4), s(12, 4), imm(0), 0);
  c.buffer_load_dwordx4_lds(v(5), s(12, 4), s(26), 2048);
  c.ds_read_b128(v(16, 4), v(6), 0);
  c.ds_read_b64(v(16, 2), v(6), 1544);
  c.v_mul_hi_u32(v(9), s(20), v(8));
  c.s_mul_hi_u32(s(21), s(20), s(22));
  c.s_addc_u32(s(25), s(25), s(21));
  c.ds_read_b128(v(20, 4), v(7), 4096);
  c.ds_read_b128(v(24, 4), v(7), 65520);
  c.s_waitcnt(6, -1);
  c.s_waitcnt(0, 0);
  c.s_barrier();
  c.s_setprio(1);
  c.v_mfma("v_mfma_f32_16x16x32_bf16", a(0, 4), v(16, 4), v(20, 4), a(0, 4));
  c.v_mfma_scale("v_mfma_scale_f32_16x16x128_f8f6f4", a(0, 4), v(16, 6), v(24, 4), a(0, 4), v(30), v(31),
                 MfmaModifiers{.cbsz = 2, .blgp = 4});
  c.v_mfma("v_mfma_f32_16x16x32_bf16", a(4, 4), v(20, 4), v(16, 4), a(8, 4));
  c.v_mfma("v_mfma_f32_32x32x16_bf16", a(16, 16), v(16, 4), v(20, 4), a(16, 16));
  c.s_setprio(0);
  c.s_nop(7);
  c.s_nop(0);
  c.s_add_u32(s(2), s(2), imm(1));
  c.s_cmp_lg_u32(s(2), s(27));
  c.s_cbranch_scc1("loop");
  c.s_branch("loop");
  c.label("done");
  c.buffer_store_dword(v(14), v(4), s(12, 4), imm(0), 0);
  c.buffer_store_dword(v(14), v(4), s(12, 4), s(28), 16);
  c.buffer_store_short_d16_hi(v(13), v(5), s(12, 4), imm(0), 2);
  c.s_endpgm();
  return c;
}

}  // namespace

TEST_CASE("streamed instructions: every builder instruction kind gives the text path's bytes", "[assembler]") {
  const Code code = every_instruction_kind();
  const KernelSpec spec = example_spec("every_kind");
  const uint64_t fallbacks = codegen::assemble_code_text_fallbacks();
  const Bytes streamed = codegen::assemble_code(code, spec, "every_kind.s");
  CHECK(codegen::assemble_code_text_fallbacks() == fallbacks);
  const Bytes text = text_object(code, spec);
  REQUIRE(streamed.size() == text.size());
  CHECK(streamed == text);
  // Second run: every shape comes from the template cache.
  CHECK(codegen::assemble_code(code, spec, "every_kind.s") == text);
  CHECK(codegen::link_hsaco(streamed) == codegen::link_hsaco(text));
}

TEST_CASE("streamed instructions: every shipped schedule and shape gives the text path's bytes", "[assembler]") {
  const std::vector<GemmShape> shapes = {parse_shape("256x256x64"), parse_shape("257x130x96"),
                                         parse_shape("1024x1024x1024")};
  for (const auto& path : schedule_test::shipped_files()) {
    const Schedule schedule = schedule_test::load(path);
    const int granule = k_granule(schedule);
    for (GemmShape shape : shapes) {
      shape.k = (shape.k + granule - 1) / granule * granule;  // 6-bit types: K in 64s
      for (OutType out : {OutType::f32, OutType::bf16}) {
        shape.out = out;
        INFO(path << " " << shape.to_string());
        const codegen::LoweredGemm lowered = codegen::lower_gemm(plan(schedule), shape, "k");
        const uint64_t fallbacks = codegen::assemble_code_text_fallbacks();
        const Bytes streamed = codegen::assemble_code(lowered.code, lowered.spec, "k.s");
        CHECK(codegen::assemble_code_text_fallbacks() == fallbacks);
        CHECK(streamed == codegen::assemble(lowered.assembly(), "k.s"));

        CompileOptions options;
        options.use_cache = false;
        const GemmKernel fast = compile(schedule, shape, options);
        options.text_assembly = true;
        const GemmKernel slow = compile(schedule, shape, options);
        CHECK(fast.kernel.hsaco() == slow.kernel.hsaco());
      }
    }
  }
}

TEST_CASE("streamed instructions: what the parser rejects gives the parser's diagnostic", "[assembler]") {
  const KernelSpec spec = example_spec("bad");
  auto message = [&](const Code& code) {
    const std::string streamed = test::error_of([&] { codegen::assemble_code(code, spec, "bad.s"); });
    CHECK(streamed == test::error_of([&] { text_object(code, spec, "bad.s"); }));
    return streamed;
  };
  Code unaligned;
  unaligned.s_load_dwordx2(s(3, 2), s(0, 2), 0);  // SGPR pairs start on even registers
  unaligned.s_endpgm();
  CHECK(message(unaligned).find("bad.s:") != std::string::npos);

  Code out_of_range;
  out_of_range.v_mov_b32(v(300), imm(0));
  out_of_range.s_endpgm();
  CHECK(message(out_of_range).find("bad.s:") != std::string::npos);

  Code unknown;
  unknown.emit({"v_no_such_instruction", {v(0)}, {v(1)}, "", ""});
  unknown.s_endpgm();
  CHECK(message(unknown).find("v_no_such_instruction") != std::string::npos);

  Code offset_too_wide;  // LDS offsets have 16 bits
  offset_too_wide.ds_read_b128(v(4, 4), v(0), 70000);
  offset_too_wide.s_endpgm();
  CHECK(message(offset_too_wide).find("16-bit") != std::string::npos);

  Code literal_in_vop3;  // gfx9 VOP3 takes no literal
  literal_in_vop3.v_add3_u32(v(0), v(1), imm(0x1000), v(2));
  literal_in_vop3.s_endpgm();
  CHECK(message(literal_in_vop3).find("bad.s:") != std::string::npos);
}

TEST_CASE("streamed instructions: a buffer offset beyond 12 bits is truncated as the parser does", "[assembler]") {
  // LLVM MC accepts "offset:5000" on buffer instructions and keeps its low 12 bits.
  Code code;
  code.buffer_store_dword(v(1), v(2), s(12, 4), imm(0), 5000);
  code.buffer_store_dword(v(1), v(2), s(12, 4), imm(0), 904);
  code.s_endpgm();
  const KernelSpec spec = example_spec("wide_offset");
  CHECK(codegen::assemble_code(code, spec, "k.s") == text_object(code, spec));
}

TEST_CASE("streamed instructions: aliased operands get a template with the same aliasing", "[assembler]") {
  const KernelSpec spec = example_spec("aliasing");
  Code code;
  code.v_add_u32(v(4), v(4), v(4));
  code.v_add_u32(v(5), v(6), v(5));
  code.v_mfma("v_mfma_f32_16x16x32_bf16", a(0, 4), v(8, 4), v(8, 4), a(0, 4));
  code.s_endpgm();
  CHECK(codegen::assemble_code(code, spec, "k.s") == text_object(code, spec));

  // The parser judges partial overlaps: both paths give the same verdict.
  Code partial;
  partial.v_mfma("v_mfma_f32_16x16x32_bf16", a(0, 4), v(8, 4), v(12, 4), a(2, 4));
  partial.s_endpgm();
  Bytes streamed, text;
  const std::string streamed_error = test::error_of([&] { streamed = codegen::assemble_code(partial, spec, "k.s"); });
  CHECK(streamed_error == test::error_of([&] { text = text_object(partial, spec); }));
  CHECK(streamed == text);
}

TEST_CASE("streamed instructions: 8 threads assemble byte-identical objects", "[assembler]") {
  const Code code = every_instruction_kind();
  const Schedule schedule = schedule_test::load("baseline_256x256x64_w8.json");
  const codegen::LoweredGemm lowered = codegen::lower_gemm(plan(schedule), parse_shape("257x130x96"), "k");
  const Bytes expected_code = text_object(code, example_spec("every_kind"));
  const Bytes expected_gemm = codegen::assemble(lowered.assembly(), "k.s");
  std::vector<int> ok(8, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      bool all = true;
      for (int r = 0; r < 4; ++r) {
        all = all && codegen::assemble_code(code, example_spec("every_kind"), "k.s") == expected_code;
        all = all && codegen::assemble_code(lowered.code, lowered.spec, "k.s") == expected_gemm;
      }
      ok[size_t(t)] = all;
    });
  for (auto& t : threads) t.join();
  CHECK(std::count(ok.begin(), ok.end(), 1) == 8);
}

TEST_CASE("direct encoding: operands over every register, offset and literal give the emitter's bytes", "[assembler]") {
  // Many instructions per template, their operands drawn over the whole range:
  // the measured bit contributions must reproduce LLVM's encoder (and the text path).
  std::mt19937 rng(20261125);
  auto any = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Code c;
  for (int i = 0; i < 300; ++i) {
    c.v_add_u32(v(any(0, 255)), v(any(0, 255)), v(any(0, 255)));
    c.v_add_u32(v(any(0, 255)), imm(any(0, 64)), v(any(0, 255)));
    c.v_add_u32(v(any(0, 255)), imm(any(65, 0x7fffffff)), v(any(0, 255)));
    c.v_xor_b32(v(any(0, 255)), s(any(0, 101)), v(any(0, 255)));
    c.s_mov_b32(s(any(0, 101)), imm(any(0x10000, 0x7fffffff)));
    c.s_add_u32(s(any(0, 101)), s(any(0, 101)), imm(any(65, 0xffff)));
    c.ds_read_b128(v(128 + 4 * any(0, 31), 4), v(any(0, 127)), 16 * any(1, 4095));  // no partial overlaps
    c.ds_write_b32(v(any(0, 255)), v(any(0, 255)), 4 * any(1, 16383));
    c.buffer_load_dword(v(any(0, 255)), v(any(0, 255)), s(4 * any(0, 24), 4), imm(0), any(1, 4095));
    c.v_accvgpr_read_b32(v(any(0, 255)), a(any(0, 255)));
    const int acc = 4 * any(0, 63);
    c.v_mfma("v_mfma_f32_16x16x32_bf16", a(acc, 4), v(4 * any(0, 31), 4), v(128 + 4 * any(0, 31), 4), a(acc, 4));
    c.s_nop(any(0, 15));
  }
  c.s_endpgm();
  const KernelSpec spec = example_spec("direct");
  const codegen::EncodingCounts before = codegen::assemble_code_encoding_counts();
  const uint64_t fallbacks = codegen::assemble_code_text_fallbacks();
  const Bytes direct = codegen::assemble_code(c, spec, "direct.s");
  CHECK(codegen::assemble_code_text_fallbacks() == fallbacks);
  const codegen::EncodingCounts after = codegen::assemble_code_encoding_counts();
  CHECK(after.direct - before.direct > 0.95 * double(c.instruction_count()));
  CHECK(direct == text_object(c, spec));
  const bool was = codegen::set_direct_encoding(false);
  const Bytes emitter = codegen::assemble_code(c, spec, "direct.s");
  codegen::set_direct_encoding(was);
  CHECK(codegen::assemble_code_encoding_counts().direct == after.direct);
  CHECK(direct == emitter);
}
