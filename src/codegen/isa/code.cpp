#include "codegen/isa/code.hpp"

#include <fmt/format.h>

namespace cdna4::codegen::isa {

size_t Code::instruction_count() const {
  size_t n = 0;
  for (const auto& l : lines) n += l.kind == Line::Kind::instruction;
  return n;
}

std::string Code::text() const {
  std::string out;
  for (const auto& l : lines) {
    switch (l.kind) {
      case Line::Kind::label: out += l.text + ":\n"; break;
      case Line::Kind::comment: out += "\t// " + l.text + "\n"; break;
      case Line::Kind::instruction:
        out += "\t" + l.inst.text();
        if (!l.inst.comment.empty()) out += "  // " + l.inst.comment;
        out += "\n";
        break;
    }
  }
  return out;
}

void Code::s_waitcnt(int vmcnt, int lgkmcnt) {
  std::string mods;
  if (vmcnt >= 0) mods += fmt::format("vmcnt({})", vmcnt);
  if (lgkmcnt >= 0) mods += fmt::format("{}lgkmcnt({})", mods.empty() ? "" : " ", lgkmcnt);
  if (mods.empty()) return;
  emit({"s_waitcnt", {}, {}, mods, ""});
}

}  // namespace cdna4::codegen::isa
