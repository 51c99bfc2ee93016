#pragma once
// The AMDGPU MC objects every assembler instance needs, created once per process.
#include <memory>

#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/TargetParser/Triple.h>

namespace cdna4::codegen {

struct AmdgpuTarget {
  llvm::Triple triple;
  const llvm::Target* target = nullptr;
  llvm::MCTargetOptions options;
  std::unique_ptr<llvm::MCRegisterInfo> mri;
  std::unique_ptr<llvm::MCAsmInfo> mai;
  std::unique_ptr<llvm::MCInstrInfo> mii;
  std::unique_ptr<llvm::MCSubtargetInfo> sti;

  // gfx950 with the default features, as llvm-mc -mcpu=gfx950 sets them.
  static const AmdgpuTarget& gfx950();
};

}  // namespace cdna4::codegen
