// isa::Code -> ELF relocatable object without parsing instruction text: each
// instruction is its shape's template with our operands put in, encoded directly
// where the template's measured fields allow (codegen/mc/direct_encoding.hpp),
// else streamed as an MCInst. The kernel's directives still go through the parser, in the same run,
// and a directive placed between them streams the instructions.
#include <atomic>
#include <cstring>
#include <unordered_set>

#include <llvm/ADT/SmallString.h>
#include <llvm/MC/MCAssembler.h>
#include <llvm/MC/MCObjectStreamer.h>
#include <llvm/MC/MCParser/MCAsmParserExtension.h>

#include "cdna4/error.hpp"
#include "codegen/assembler.hpp"
#include "codegen/kernel_descriptor.hpp"
#include "codegen/mc/assembly_session.hpp"
#include "codegen/mc/direct_encoding.hpp"
#include "codegen/mc/instruction_templates.hpp"
#include "codegen/mc/register_table.hpp"

namespace cdna4::codegen {

namespace {

constexpr const char* kStreamDirective = ".cdna4_stream_instructions";
std::atomic<uint64_t> text_fallbacks{0};
std::atomic<uint64_t> direct_count{0}, emitter_count{0};

// Everything the text parser would reject and a template would not notice:
// registers gfx950 does not have, a label defined twice.
void check_streamable(const isa::Code& code) {
  const RegisterTable& regs = RegisterTable::gfx950();
  std::unordered_set<std::string_view> labels;
  for (const auto& line : code.lines) {
    if (line.kind == isa::Line::Kind::label && !labels.insert(line.text).second)
      throw TemplateUnavailable("label " + line.text + " defined twice");
    if (line.kind != isa::Line::Kind::instruction) continue;
    const size_t n = line.inst.defs.size() + line.inst.uses.size();
    for (size_t i = 0; i < n; ++i) {
      const auto* r = std::get_if<isa::Reg>(&nth_arg(line.inst, i));
      if (!r) continue;
      if (!regs.find(*r)) throw TemplateUnavailable("no gfx950 register " + isa::to_text(*r));
      // Templates see equal or disjoint placeholders; partial overlaps are for the parser to judge.
      for (size_t j = 0; j < i; ++j)
        if (const auto* o = std::get_if<isa::Reg>(&nth_arg(line.inst, j)); o && o->overlaps(*r) && !(*o == *r))
          throw TemplateUnavailable("partially overlapping operands in " + line.inst.text());
    }
  }
}

class InstructionStreamDirective : public llvm::MCAsmParserExtension {
 public:
  InstructionStreamDirective(const isa::Code& code, std::vector<const InstructionTemplate*> templates)
      : code_(code), templates_(std::move(templates)) {}

  void Initialize(llvm::MCAsmParser& parser) override {
    llvm::MCAsmParserExtension::Initialize(parser);
    parser.addDirectiveHandler(kStreamDirective, {this, &handle});
  }

 private:
  static bool handle(llvm::MCAsmParserExtension* self, llvm::StringRef, llvm::SMLoc) {
    auto& directive = *static_cast<InstructionStreamDirective*>(self);
    if (directive.getParser().parseEOL()) return true;
    directive.stream();
    return false;
  }

  void stream() {
    llvm::MCContext& ctx = getContext();
    auto& out = static_cast<llvm::MCObjectStreamer&>(getStreamer());
    const llvm::MCSubtargetInfo& sti = getParser().getTargetParser().getSTI();
    const EmitterContext mc{out.getAssembler().getEmitter(), sti, ctx};
    const auto direct = DirectEncodings::process().lookup(code_, templates_, mc);
    llvm::SmallString<4096> bytes;  // directly encoded, not yet handed to the streamer
    auto flush = [&] {
      if (!bytes.empty()) out.emitBytes(bytes);
      bytes.clear();
    };
    llvm::MCInst inst;
    EncodedInstruction encoded;
    for (size_t i = 0; i < code_.lines.size(); ++i) {
      const isa::Line& line = code_.lines[i];
      if (line.kind == isa::Line::Kind::label) {
        flush();
        out.emitLabel(ctx.getOrCreateSymbol(line.text));
      }
      if (line.kind != isa::Line::Kind::instruction) continue;
      if (direct[i] && direct[i]->encode(line.inst, encoded)) {
        char raw[16];
        std::memcpy(raw, &encoded.lo, 8);
        std::memcpy(raw + 8, &encoded.hi, 8);
        bytes.append(raw, raw + encoded.size);
        ++direct_count;
        continue;
      }
      flush();
      inst = templates_[i]->inst;
      if (!fill_template(inst, *templates_[i], line.inst, ctx))
        throw TemplateUnavailable("operands of " + line.inst.text() + " do not fit its template");
      out.emitInstruction(inst, sti);
      ++emitter_count;
    }
    flush();
  }

  const isa::Code& code_;
  std::vector<const InstructionTemplate*> templates_;
};

Bytes stream_code(const isa::Code& code, const KernelSpec& spec, std::string_view name) {
  check_streamable(code);
  auto templates = TemplateCache::process().lookup(code);
  const std::string directives =
      kernel_prologue_directives(spec) + "\t" + kStreamDirective + "\n" + kernel_epilogue_directives(spec);
  AssemblySession session(directives, name);
  session.stream_to_object();
  InstructionStreamDirective directive(code, std::move(templates));
  directive.Initialize(session.parser());
  session.run();
  return session.object();
}

}  // namespace

Bytes assemble_code(const isa::Code& code, const KernelSpec& spec, std::string_view name) {
  try {
    return stream_code(code, spec, name);
  } catch (const TemplateUnavailable&) {
  } catch (const Error&) {
  }
  ++text_fallbacks;
  // The text path gives the same bytes, or the parser's diagnostic with its line and column.
  return assemble(kernel_prologue_directives(spec) + code.text() + kernel_epilogue_directives(spec), name);
}

uint64_t assemble_code_text_fallbacks() { return text_fallbacks.load(); }

EncodingCounts assemble_code_encoding_counts() { return {direct_count.load(), emitter_count.load()}; }

}  // namespace cdna4::codegen
