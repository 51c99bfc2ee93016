#pragma once
// In-process gfx950 assembler (LLVM MC) and linker (lld) producing HSA code objects.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cdna4/assembler.hpp"

namespace cdna4::codegen {

using Bytes = std::vector<uint8_t>;
using cdna4::TextAssemblyOptions;

// Assembles gfx950 assembly text into an ELF relocatable object in memory.
// Throws cdna4::Error naming "<source_name>:line:col: message" for every
// diagnostic LLVM reports.
Bytes assemble(std::string_view text, std::string_view source_name = "<input>",
               const TextAssemblyOptions& options = {});

namespace isa {
class Code;
}
struct KernelSpec;

// Assembles a kernel, the same bytes as assemble(kernel_prologue_directives(spec)
// + code.text() + kernel_epilogue_directives(spec), name), about ten times faster
// per instruction: instructions are streamed to LLVM MC as MCInsts built from
// per-shape templates; only the directives are parsed. A kernel the templates
// cannot express goes through the text path (which also gives the diagnostics).
Bytes assemble_code(const isa::Code& code, const KernelSpec& spec, std::string_view name);

// How many assemble_code calls took the text path since the process started.
uint64_t assemble_code_text_fallbacks();

// Instructions assemble_code encoded directly and through LLVM's code emitter
// since the process started (see codegen/mc/direct_encoding.hpp).
struct EncodingCounts {
  uint64_t direct = 0, emitter = 0;
};
EncodingCounts assemble_code_encoding_counts();

// Turns direct encoding off (everything through the emitter), for the test that
// both give the same bytes; returns the previous setting.
bool set_direct_encoding(bool on);

// Links a relocatable object into an HSA code object (ET_DYN, code object v5).
Bytes link_hsaco(std::span<const uint8_t> object);

// assemble + link.
inline Bytes build_hsaco(std::string_view text, std::string_view source_name = "<input>",
                         const TextAssemblyOptions& options = {}) {
  return link_hsaco(assemble(text, source_name, options));
}

}  // namespace cdna4::codegen

namespace cdna4::codegen {

// The ld.lld arguments (besides -o and the input) every link uses, in-process or not.
const std::vector<std::string>& link_flags();

// True once lld reported it cannot run again in this process; links then go
// through the ld.lld-22 executable.
bool linker_uses_fallback();

// Sends every link to the ld.lld-22 executable (the path taken after lld says it
// cannot run again); for tests of that path and for debugging.
void force_executable_linker(bool on);

}  // namespace cdna4::codegen
