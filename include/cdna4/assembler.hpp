#pragma once
// gfx950 assembly text -> an ELF relocatable object (LLVM MC, in process) ->
// an HSA code object (lld, in process): for hand-written kernels.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cdna4 {

// What assembly text may do beyond producing code.
struct TextAssemblyOptions {
  // .include and .incbin read files only when allowed, resolved against
  // include_dir; otherwise the assembler sees no file system at all.
  bool allow_file_directives = false;
  std::string include_dir;
  // Repetition (.rept/.rep/.irp/.irpc, nested counts multiplied) may expand to
  // at most this many source lines, and .fill/.space/.skip/.zero may reserve at
  // most this many bytes in all; past either, assembly fails naming the directive.
  uint64_t max_repeated_lines = uint64_t(1) << 20;
  uint64_t max_reserved_bytes = uint64_t(64) << 20;
};

// Assembles gfx950 text into a relocatable object. Throws cdna4::Error naming
// "<source_name>:line:col: message" for every diagnostic LLVM reports.
std::vector<uint8_t> assemble_text(std::string_view text, std::string_view source_name = "<input>",
                                   const TextAssemblyOptions& options = {});
// Links a relocatable object into an HSA code object (code object v5).
std::vector<uint8_t> link_code_object(std::span<const uint8_t> object);

}  // namespace cdna4
