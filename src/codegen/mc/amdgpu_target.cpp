#include "codegen/mc/amdgpu_target.hpp"

#include <llvm/Support/TargetSelect.h>

#include "cdna4/error.hpp"

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUAsmParser();
void LLVMInitializeAMDGPUDisassembler();
}

namespace cdna4::codegen {

static std::unique_ptr<AmdgpuTarget> create_gfx950() {
  // Only the AMDGPU target: initialising all targets costs start-up time for nothing.
  LLVMInitializeAMDGPUTargetInfo();
  LLVMInitializeAMDGPUTargetMC();
  LLVMInitializeAMDGPUAsmParser();
  LLVMInitializeAMDGPUDisassembler();

  auto t = std::make_unique<AmdgpuTarget>();
  t->triple = llvm::Triple("amdgcn-amd-amdhsa");
  std::string error;
  t->target = llvm::TargetRegistry::lookupTarget(t->triple, error);
  if (!t->target) throw Error("LLVM has no AMDGPU target: " + error);
  t->mri.reset(t->target->createMCRegInfo(t->triple));
  t->mai.reset(t->target->createMCAsmInfo(*t->mri, t->triple, t->options));
  t->mii.reset(t->target->createMCInstrInfo());
  t->sti.reset(t->target->createMCSubtargetInfo(t->triple, "gfx950", ""));
  if (!t->mri || !t->mai || !t->mii || !t->sti)
    throw Error("could not create the LLVM MC objects for amdgcn-amd-amdhsa gfx950");
  return t;
}

const AmdgpuTarget& AmdgpuTarget::gfx950() {
  static const std::unique_ptr<AmdgpuTarget> instance = create_gfx950();
  return *instance;
}

}  // namespace cdna4::codegen
