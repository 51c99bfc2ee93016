// Assembly text -> ELF relocatable object, in memory, through LLVM MC.
#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "codegen/assembler.hpp"
#include "codegen/mc/assembly_session.hpp"
#include "codegen/mc/expansion_budget.hpp"

namespace cdna4::codegen {

Bytes assemble(std::string_view text, std::string_view source_name, const TextAssemblyOptions& options) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw Error(fmt::format("{}: empty assembly input", source_name));
  check_expansion(text, source_name, options);
  AssemblySession session(text, source_name);
  session.restrict_files(options);
  session.stream_to_object();
  // run() finishes the streamer, which writes the whole object.
  session.run();
  return session.object();
}

}  // namespace cdna4::codegen
