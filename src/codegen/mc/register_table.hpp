#pragma once
// Our registers (file, first index, count) -> LLVM MC register numbers, found by
// the names LLVM gives them ("VGPR8", "AGPR0_AGPR1_AGPR2_AGPR3", "SGPR12_SGPR13"):
// the AMDGPU register enums live in headers that are not installed.
#include <vector>

#include <llvm/MC/MCRegister.h>

#include "codegen/isa/instruction.hpp"

namespace cdna4::codegen {

class RegisterTable {
 public:
  static const RegisterTable& gfx950();

  // An invalid MCRegister when gfx950 has no such register or tuple.
  llvm::MCRegister find(const isa::Reg& r) const {
    if (r.count == 0 || r.count > kMaxCount || r.index >= kMaxIndex) return {};
    return regs_[slot(r.file, r.count, r.index)];
  }

 private:
  static constexpr int kFiles = 3, kMaxCount = 32, kMaxIndex = 256;
  static size_t slot(isa::RegFile f, int count, int index) {
    return (size_t(f) * (kMaxCount + 1) + size_t(count)) * kMaxIndex + size_t(index);
  }
  RegisterTable();
  std::vector<llvm::MCRegister> regs_;
};

}  // namespace cdna4::codegen
