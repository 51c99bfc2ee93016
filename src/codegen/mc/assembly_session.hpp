#pragma once
// One in-process assembly run: source buffer, diagnostics, MC context, a streamer
// and the gfx950 assembly parser over them. Shared by the text assembler, the
// instruction streamer and the template builder.
#include <memory>
#include <string>
#include <string_view>

#include <llvm/ADT/SmallVector.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCParser/MCAsmParser.h>
#include <llvm/MC/MCParser/MCTargetAsmParser.h>
#include <llvm/MC/MCStreamer.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Support/SourceMgr.h>

#include "codegen/assembler.hpp"

namespace cdna4::codegen {

// Collects every diagnostic as "name:line:col: kind: message" plus the source line.
struct DiagnosticLog {
  std::string source_name;
  std::string text;
  bool has_error = false;

  void add(const llvm::SMDiagnostic& d);
};

class AssemblySession {
 public:
  // `text` is what the parser reads; `source_name` names it in diagnostics.
  AssemblySession(std::string_view text, std::string_view source_name);
  ~AssemblySession();
  AssemblySession(const AssemblySession&) = delete;
  AssemblySession& operator=(const AssemblySession&) = delete;

  // What .include / .incbin may read (see TextAssemblyOptions). Sessions that
  // are not given options see no file system.
  void restrict_files(const TextAssemblyOptions& options);

  llvm::MCContext& context() { return *ctx_; }
  const llvm::MCSubtargetInfo& subtarget() const { return *sti_; }

  // Exactly one of these, before parser(): an ELF object streamer writing into
  // object(), or a caller-made streamer (built over context()).
  void stream_to_object();
  void stream_to(std::unique_ptr<llvm::MCStreamer> streamer);
  llvm::MCStreamer& streamer() { return *streamer_; }

  llvm::MCAsmParser& parser();

  // Parses the whole text and finishes the streamer. Throws cdna4::Error with
  // every diagnostic when anything failed.
  void run();

  Bytes object() const { return Bytes(object_.begin(), object_.end()); }

 private:
  DiagnosticLog log_;
  llvm::SourceMgr sources_;
  // Each run owns its subtarget: the parser mutates subtarget features through
  // directives, so threads never share state.
  std::unique_ptr<llvm::MCSubtargetInfo> sti_;
  std::unique_ptr<llvm::MCContext> ctx_;
  std::unique_ptr<llvm::MCObjectFileInfo> mofi_;
  llvm::SmallVector<char, 0> object_;
  std::unique_ptr<llvm::raw_svector_ostream> object_os_;
  // Declared after the streamer so it is destroyed first: the parser refers to it.
  std::unique_ptr<llvm::MCStreamer> streamer_;
  std::unique_ptr<llvm::MCAsmParser> parser_;
  std::unique_ptr<llvm::MCTargetAsmParser> target_parser_;
};

}  // namespace cdna4::codegen
