// Assembly text -> ELF relocatable object, in memory, through LLVM MC.
#include <mutex>

#include <fmt/format.h>
#include <llvm/MC/MCAsmBackend.h>
#include <llvm/MC/MCCodeEmitter.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCObjectWriter.h>
#include <llvm/MC/MCParser/MCAsmParser.h>
#include <llvm/MC/MCParser/MCTargetAsmParser.h>
#include <llvm/MC/MCStreamer.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include "cdna4/error.hpp"
#include "codegen/assembler.hpp"
#include "codegen/mc/amdgpu_target.hpp"

namespace cdna4::codegen {

namespace {

// Collects every diagnostic as "name:line:col: kind: message" plus the source line.
struct DiagnosticLog {
  std::string source_name;
  std::string text;
  bool has_error = false;

  void add(const llvm::SMDiagnostic& d) {
    const char* kind = "error";
    if (d.getKind() == llvm::SourceMgr::DK_Warning) kind = "warning";
    else if (d.getKind() == llvm::SourceMgr::DK_Note || d.getKind() == llvm::SourceMgr::DK_Remark) kind = "note";
    else has_error = true;
    text += fmt::format("{}:{}:{}: {}: {}\n", source_name, d.getLineNo(), d.getColumnNo() + 1, kind,
                        d.getMessage().str());
    if (!d.getLineContents().empty()) text += fmt::format("  {}\n", d.getLineContents().str());
  }
};

}  // namespace

Bytes assemble(std::string_view text, std::string_view source_name) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw Error(fmt::format("{}: empty assembly input", source_name));
  const AmdgpuTarget& t = AmdgpuTarget::gfx950();

  DiagnosticLog log;
  log.source_name = std::string(source_name);
  llvm::SourceMgr src;
  src.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(text.data(), text.size()),
                                                              std::string(source_name)),
                         llvm::SMLoc());
  src.setDiagHandler([](const llvm::SMDiagnostic& d, void* ctx) { static_cast<DiagnosticLog*>(ctx)->add(d); },
                     &log);

  // Each assembly owns its own context, streamer and subtarget (the parser
  // mutates subtarget features through directives), so threads never share state.
  std::unique_ptr<llvm::MCSubtargetInfo> sti(t.target->createMCSubtargetInfo(t.triple, "gfx950", ""));
  llvm::MCContext ctx(t.triple, t.mai.get(), t.mri.get(), sti.get(), &src, &t.options);
  ctx.setDiagnosticHandler([&log](const llvm::SMDiagnostic& d, bool, const llvm::SourceMgr&,
                                  std::vector<const llvm::MDNode*>&) { log.add(d); });
  std::unique_ptr<llvm::MCObjectFileInfo> mofi(t.target->createMCObjectFileInfo(ctx, /*PIC=*/false));
  ctx.setObjectFileInfo(mofi.get());

  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  std::unique_ptr<llvm::MCAsmBackend> backend(t.target->createMCAsmBackend(*sti, *t.mri, t.options));
  std::unique_ptr<llvm::MCCodeEmitter> emitter(t.target->createMCCodeEmitter(*t.mii, ctx));
  auto writer = backend->createObjectWriter(os);
  std::unique_ptr<llvm::MCStreamer> streamer(t.target->createMCObjectStreamer(
      t.triple, ctx, std::move(backend), std::move(writer), std::move(emitter), *sti));

  std::unique_ptr<llvm::MCAsmParser> parser(llvm::createMCAsmParser(src, ctx, *streamer, *t.mai));
  std::unique_ptr<llvm::MCTargetAsmParser> target_parser(
      t.target->createMCAsmParser(*sti, *parser, *t.mii, t.options));
  if (!target_parser) throw Error("LLVM has no AMDGPU assembly parser");
  parser->setTargetParser(*target_parser);

  const bool failed = parser->Run(/*NoInitialTextSection=*/false);
  if (failed || log.has_error || ctx.hadError()) {
    if (log.text.empty()) log.text = fmt::format("{}: assembly failed without a diagnostic\n", source_name);
    log.text.pop_back();
    throw Error(log.text);
  }
  // Run() finished the streamer, which wrote the whole object into `object`.
  return Bytes(object.begin(), object.end());
}

}  // namespace cdna4::codegen
