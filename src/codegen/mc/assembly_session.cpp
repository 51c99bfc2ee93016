#include "codegen/mc/assembly_session.hpp"

#include <fmt/format.h>
#include <llvm/MC/MCAsmBackend.h>
#include <llvm/MC/MCCodeEmitter.h>
#include <llvm/MC/MCObjectWriter.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include "cdna4/error.hpp"
#include "codegen/mc/amdgpu_target.hpp"

namespace cdna4::codegen {

void DiagnosticLog::add(const llvm::SMDiagnostic& d) {
  const char* kind = "error";
  if (d.getKind() == llvm::SourceMgr::DK_Warning) kind = "warning";
  else if (d.getKind() == llvm::SourceMgr::DK_Note || d.getKind() == llvm::SourceMgr::DK_Remark) kind = "note";
  else has_error = true;
  text += fmt::format("{}:{}:{}: {}: {}\n", source_name, d.getLineNo(), d.getColumnNo() + 1, kind,
                      d.getMessage().str());
  if (!d.getLineContents().empty()) text += fmt::format("  {}\n", d.getLineContents().str());
}

AssemblySession::AssemblySession(std::string_view text, std::string_view source_name) {
  const AmdgpuTarget& t = AmdgpuTarget::gfx950();
  log_.source_name = std::string(source_name);
  sources_.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(text.data(), text.size()),
                                                                   std::string(source_name)),
                              llvm::SMLoc());
  sources_.setVirtualFileSystem(llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>());
  sources_.setDiagHandler(
      [](const llvm::SMDiagnostic& d, void* log) { static_cast<DiagnosticLog*>(log)->add(d); }, &log_);
  sti_.reset(t.target->createMCSubtargetInfo(t.triple, "gfx950", ""));
  ctx_ = std::make_unique<llvm::MCContext>(t.triple, t.mai.get(), t.mri.get(), sti_.get(), &sources_,
                                           &t.options);
  ctx_->setDiagnosticHandler([this](const llvm::SMDiagnostic& d, bool, const llvm::SourceMgr&,
                                    std::vector<const llvm::MDNode*>&) { log_.add(d); });
  mofi_.reset(t.target->createMCObjectFileInfo(*ctx_, /*PIC=*/false));
  ctx_->setObjectFileInfo(mofi_.get());
}

AssemblySession::~AssemblySession() = default;

void AssemblySession::restrict_files(const TextAssemblyOptions& options) {
  if (!options.allow_file_directives) {
    sources_.setVirtualFileSystem(llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>());
    sources_.setIncludeDirs({});
    return;
  }
  // Its own working directory, so relative names resolve against include_dir
  // and never against the process's.
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> files(llvm::vfs::createPhysicalFileSystem().release());
  if (!options.include_dir.empty() && files->setCurrentWorkingDirectory(options.include_dir))
    throw Error(fmt::format("include directory {} cannot be used", options.include_dir));
  sources_.setVirtualFileSystem(files);
  sources_.setIncludeDirs({});
}

void AssemblySession::stream_to_object() {
  const AmdgpuTarget& t = AmdgpuTarget::gfx950();
  object_os_ = std::make_unique<llvm::raw_svector_ostream>(object_);
  std::unique_ptr<llvm::MCAsmBackend> backend(t.target->createMCAsmBackend(*sti_, *t.mri, t.options));
  std::unique_ptr<llvm::MCCodeEmitter> emitter(t.target->createMCCodeEmitter(*t.mii, *ctx_));
  auto writer = backend->createObjectWriter(*object_os_);
  streamer_.reset(t.target->createMCObjectStreamer(t.triple, *ctx_, std::move(backend), std::move(writer),
                                                   std::move(emitter), *sti_));
}

void AssemblySession::stream_to(std::unique_ptr<llvm::MCStreamer> streamer) { streamer_ = std::move(streamer); }

llvm::MCAsmParser& AssemblySession::parser() {
  if (parser_) return *parser_;
  const AmdgpuTarget& t = AmdgpuTarget::gfx950();
  parser_.reset(llvm::createMCAsmParser(sources_, *ctx_, *streamer_, *t.mai));
  target_parser_.reset(t.target->createMCAsmParser(*sti_, *parser_, *t.mii, t.options));
  if (!target_parser_) throw Error("LLVM has no AMDGPU assembly parser");
  parser_->setTargetParser(*target_parser_);
  return *parser_;
}

void AssemblySession::run() {
  const bool failed = parser().Run(/*NoInitialTextSection=*/false);
  if (failed || log_.has_error || ctx_->hadError()) {
    std::string text = log_.text;
    if (text.empty()) text = fmt::format("{}: assembly failed without a diagnostic\n", log_.source_name);
    text.pop_back();
    throw Error(text);
  }
}

}  // namespace cdna4::codegen
