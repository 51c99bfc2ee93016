#include "codegen/mc/register_table.hpp"

#include <optional>
#include <string_view>

#include "codegen/mc/amdgpu_target.hpp"

namespace cdna4::codegen {

namespace {

struct NamedRegister {
  isa::RegFile file;
  int index;
};

// "VGPR12" -> {v, 12}; anything else (VGPR12_LO16, TTMP0, SGPR_NULL) -> nothing.
std::optional<NamedRegister> parse_part(std::string_view part) {
  if (part.size() < 5) return std::nullopt;
  const std::string_view prefix = part.substr(0, 4);
  isa::RegFile file;
  if (prefix == "SGPR") file = isa::RegFile::s;
  else if (prefix == "VGPR") file = isa::RegFile::v;
  else if (prefix == "AGPR") file = isa::RegFile::a;
  else return std::nullopt;
  int index = 0;
  for (char c : part.substr(4)) {
    if (c < '0' || c > '9') return std::nullopt;
    index = index * 10 + (c - '0');
  }
  return NamedRegister{file, index};
}

// A run of consecutive registers of one file, "SGPR4_SGPR5_SGPR6_SGPR7" -> s[4:7].
std::optional<isa::Reg> parse_name(std::string_view name) {
  std::optional<isa::Reg> out;
  while (!name.empty()) {
    const size_t cut = name.find('_');
    const auto part = parse_part(name.substr(0, cut));
    if (!part) return std::nullopt;
    if (!out) out = isa::Reg{part->file, uint16_t(part->index), 1};
    else if (part->file != out->file || part->index != out->index + out->count) return std::nullopt;
    else ++out->count;
    name = cut == std::string_view::npos ? std::string_view{} : name.substr(cut + 1);
  }
  return out;
}

}  // namespace

RegisterTable::RegisterTable() : regs_(size_t(kFiles) * (kMaxCount + 1) * kMaxIndex) {
  const llvm::MCRegisterInfo& mri = *AmdgpuTarget::gfx950().mri;
  for (unsigned r = 1; r < mri.getNumRegs(); ++r) {
    const auto reg = parse_name(mri.getName(r));
    if (!reg || reg->count > kMaxCount || reg->index >= kMaxIndex) continue;
    regs_[slot(reg->file, reg->count, reg->index)] = llvm::MCRegister(r);
  }
}

const RegisterTable& RegisterTable::gfx950() {
  static const RegisterTable table;
  return table;
}

}  // namespace cdna4::codegen
