// The emitted code round-trips through LLVM: every instruction we print decodes
// (LLVM's AMDGPU disassembler, from the linked bytes) to the same text, and the
// .s that cdna4-asmgen writes re-assembles with llvm-mc-22 to the same bytes.
#include <catch2/catch.hpp>

#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/Support/raw_ostream.h>

#include "cdna4/gemm.hpp"
#include "codegen/assembler.hpp"
#include "codegen/attention/lower_attention.hpp"
#include "codegen/gemm/lower_gemm.hpp"
#include "codegen/mc/amdgpu_target.hpp"
#include "support/process.hpp"

using namespace cdna4;

namespace {

std::string normalize(std::string text) {
  for (char& c : text)
    if (c == '\t') c = ' ';
  text.erase(0, text.find_first_not_of(' '));
  // The printer names the encoding (_e32 / _e64); the builder leaves that to the assembler.
  for (const char* suffix : {"_e32", "_e64"})
    if (auto at = text.find(suffix); at != std::string::npos && at < text.find(' ')) text.erase(at, 4);
  std::string out;
  for (char c : text)
    if (!(c == ' ' && (out.empty() || out.back() == ' ' || out.back() == ','))) out += c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Disassembles `bytes` from `offset` on, one text line per instruction.
std::vector<std::string> disassemble(const std::vector<uint8_t>& bytes, uint64_t offset, size_t count) {
  const auto& t = codegen::AmdgpuTarget::gfx950();
  llvm::MCContext ctx(t.triple, t.mai.get(), t.mri.get(), t.sti.get());
  std::unique_ptr<llvm::MCDisassembler> dis(t.target->createMCDisassembler(*t.sti, ctx));
  std::unique_ptr<llvm::MCInstPrinter> printer(t.target->createMCInstPrinter(t.triple, 0, *t.mai, *t.mii, *t.mri));
  std::vector<std::string> out;
  for (uint64_t at = offset; at < bytes.size() && out.size() < count;) {
    llvm::MCInst inst;
    uint64_t size = 0;
    llvm::ArrayRef<uint8_t> rest(bytes.data() + at, bytes.size() - at);
    if (dis->getInstruction(inst, size, rest, at, llvm::nulls()) != llvm::MCDisassembler::Success) {
      out.push_back("<undecodable>");
      break;
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    printer->printInst(&inst, at, "", *t.sti, os);
    out.push_back(normalize(text));
    at += size;
  }
  return out;
}

// Every instruction of `code` (whose text with directives is `assembly`) decodes to its printed text.
void check_decoded(const std::string& what, const codegen::isa::Code& code, const std::string& assembly) {
  const CodeObject co = CodeObject::read(codegen::build_hsaco(assembly));
  std::vector<std::string> printed;
  for (const auto& line : code.lines)
    if (line.kind == codegen::isa::Line::Kind::instruction) printed.push_back(normalize(line.inst.text()));
  const auto decoded = disassemble(co.text(), co.kernels().at(0).entry_offset, printed.size());
  REQUIRE(decoded.size() == printed.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < printed.size(); ++i) {
    // Branch targets print as offsets; the branch itself must still match.
    const bool branch = printed[i].rfind("s_cbranch", 0) == 0 || printed[i].rfind("s_branch", 0) == 0;
    const std::string want = branch ? printed[i].substr(0, printed[i].find(' ')) : printed[i];
    const std::string got = branch ? decoded[i].substr(0, decoded[i].find(' ')) : decoded[i];
    if (want != got && ++mismatches <= 10) FAIL_CHECK(what << " #" << i << ": printed '" << want << "', decoded '" << got << "'");
  }
  CHECK(mismatches == 0);
}

void check_roundtrip(const char* schedule, const char* shape, OutType out, int64_t batch = 1) {
  const Schedule s = load_schedule(test::source_path(std::string("schedules/") + schedule));
  GemmShape sh = parse_shape(shape);
  sh.out = out;
  sh.batch = batch;
  const Schedule planned = plan(s);
  const codegen::LoweredGemm lowered = codegen::lower_gemm(planned, sh, "roundtrip");
  check_decoded(schedule, lowered.code, lowered.assembly());
}

}  // namespace

TEST_CASE("every emitted instruction decodes to the text we printed", "[codegen][roundtrip]") {
  check_roundtrip("baseline_256x256x64_w8.json", "257x130x640", OutType::f32);
  check_roundtrip("interleave4_256x256x64_w8.json", "300x260x1024", OutType::bf16);
  check_roundtrip("pingpong_256x256x64_w8.json", "512x512x1024", OutType::f32);
  check_roundtrip("tilelang_ns2_128x128x64_w4.json", "100x90x200", OutType::bf16);
  // 6-bit rows (v_mul_hi_u32, ds_read_b64), mixed widths, a batch (s_mul_hi_u32, s_addc_u32).
  check_roundtrip("baseline_mxfp6_256x256x128_w8.json", "300x260x640", OutType::f32);
  check_roundtrip("baseline_fp8xfp4_256x256x128_w8.json", "257x130x384", OutType::bf16, 3);
}

TEST_CASE("every emitted attention instruction decodes to the text we printed", "[codegen][roundtrip]") {
  // Causal, ragged, GQA, bf16 O and the LSE: the mask, the EXEC-masked stores, the permlane swaps.
  for (int dim : {128, 64}) {
    AttentionSchedule s;
    s.name = "attention_roundtrip";
    s.dim = dim;
    s.num_stages = 2;
    AttentionShape sh;
    sh.batch = 2, sh.seqlen_q = 300, sh.seqlen_k = 65, sh.heads = 4, sh.heads_kv = 2, sh.dim = dim;
    sh.causal = true, sh.lse = true;
    const codegen::LoweredAttention lowered = codegen::lower_attention(plan(s), sh, "roundtrip");
    check_decoded(s.name, lowered.code, lowered.assembly());
  }
}

TEST_CASE("the .s that cdna4-asmgen writes re-assembles with llvm-mc-22 to the same bytes", "[codegen][roundtrip]") {
  test::TempDir dir;
  const std::string asmgen = std::string(CDNA4_BINARY_DIR) + "/cdna4-asmgen";
  const std::string schedule = test::source_path("schedules/prefetch2_256x256x64_w8.json");
  auto gen = test::run_command({asmgen, schedule, "--shape", "300x260x1024", "--out-type", "bf16", "-o", dir.file("k.s")});
  REQUIRE(gen.status == 0);
  auto obj = test::run_command({asmgen, schedule, "--shape", "300x260x1024", "--out-type", "bf16", "-o", dir.file("k.o")});
  REQUIRE(obj.status == 0);
  auto mc = test::run_command({CDNA4_LLVM_MC, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx950", "-filetype=obj",
                               dir.file("k.s"), "-o", dir.file("mc.o")});
  REQUIRE(mc.status == 0);
  CHECK((test::read_binary(dir.file("mc.o")) == test::read_binary(dir.file("k.o"))));
}
