// What of a kernel the emulator cannot execute, found by decoding alone: the
// instructions reachable from the entry whose decode ended in a trap.
#include <fmt/format.h>

#include <map>
#include <string_view>
#include <utility>

#include "cdna4/runtime.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/program.hpp"

namespace cdna4 {
namespace {

bool ends_flow(std::string_view base) {
  return base == "S_ENDPGM" || base == "S_ENDPGM_SAVED" || base == "S_BRANCH" || base == "S_SETPC_B64" ||
         base == "S_CODE_END";
}

bool is_branch(std::string_view base) { return base == "S_BRANCH" || base.starts_with("S_CBRANCH"); }

// Only reachable code counts: .text also holds padding (s_code_end fill, data
// after the last s_endpgm, other kernels) that never executes.
std::vector<bool> reachable(const emu::Program& p, uint32_t entry) {
  std::vector<bool> seen(p.insts.size(), false);
  std::vector<uint32_t> work{entry};
  while (!work.empty()) {
    const uint32_t i = work.back();
    work.pop_back();
    if (i >= p.insts.size() || seen[i]) continue;
    seen[i] = true;
    const std::string base = emu::base_opcode_name(p.names[i]);
    if (is_branch(base) && p.errors[i].empty()) work.push_back(p.insts[i].target);
    if (!ends_flow(base)) work.push_back(i + 1);
  }
  return seen;
}

}  // namespace

std::vector<UnsupportedInstruction> emulator_unsupported(const Kernel& kernel) {
  const KernelInfo& info = kernel.info();
  auto program = emu::decode_program(kernel.code_object().text(), info.accum_offset);
  const int32_t entry = program->index_at(info.entry_offset);
  if (entry < 0)
    throw Error(fmt::format("kernel {}: entry 0x{:x} is not an instruction", info.name, info.entry_offset));
  const std::vector<bool> seen = reachable(*program, uint32_t(entry));
  std::vector<UnsupportedInstruction> out;
  std::map<std::pair<std::string, std::string>, size_t> index;  // (opcode, reason) -> entry of out
  for (size_t i = 0; i < program->insts.size(); ++i) {
    if (!seen[i] || program->errors[i].empty()) continue;
    auto [it, added] = index.emplace(std::pair{program->names[i], program->errors[i]}, out.size());
    if (added)
      out.push_back({program->names[i], program->disasm[i], program->errors[i], program->insts[i].pc, 0});
    ++out[it->second].count;
  }
  return out;
}

}  // namespace cdna4
