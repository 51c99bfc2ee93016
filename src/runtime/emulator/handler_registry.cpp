#include "runtime/emulator/handler_registry.hpp"

#include <array>

namespace cdna4::emu {

const HandlerRegistry& handler_registry() {
  static const HandlerRegistry registry = [] {
    HandlerRegistry r;
    register_scalar_alu(r);
    register_program_control(r);
    register_vector_integer(r);
    register_vector_integer16(r);
    register_vector_float(r);
    register_vector_compare(r);
    register_vector_packed(r);
    register_vector_gfx950(r);
    register_vector_transcendental(r);
    register_vector_minmax3(r);
    register_vector_convert(r);
    register_vector_bits(r);
    register_matrix(r);
    register_scalar_memory(r);
    register_local_memory(r);
    register_vector_memory(r);
    register_vector_atomic(r);
    register_flat_memory(r);
    register_scalar_store(r);
    register_scratch_memory(r);
    register_lane_exchange(r);
    return r;
  }();
  return registry;
}

std::string base_opcode_name(std::string_view name) {
  // Encoding/subtarget suffixes that do not change the operation; DPP and SDWA
  // forms run the plain operation on prepared operands (lane_modifiers.hpp).
  static constexpr std::array<std::string_view, 14> kSuffixes = {
      "_vi", "_gfx9", "_gfx90a", "_gfx940", "_gfx950", "_acd", "_vcd", "_e32", "_e64",
      "_si", "_ci", "_gfx6_gfx7", "_dpp", "_sdwa"};
  // The f8f6f4 MFMAs' A / B register-tuple sizes ("_f8_f6"): one handler reads cbsz / blgp.
  static constexpr std::array<std::string_view, 9> kTupleSuffixes = {
      "_f8_f8", "_f8_f6", "_f8_f4", "_f6_f8", "_f6_f6", "_f6_f4", "_f4_f8", "_f4_f6", "_f4_f4"};
  std::string s(name);
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (auto suffix : kSuffixes) {
      if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0) {
        s.resize(s.size() - suffix.size());
        stripped = true;
      }
    }
  }
  for (auto suffix : kTupleSuffixes)
    if (s.ends_with(suffix) && s.find("F8F6F4") != std::string::npos) s.resize(s.size() - suffix.size());
  return s;
}

void add_vector_ops(HandlerRegistry& r, std::span<const VectorOpEntry> ops) {
  for (const auto& e : ops) {
    const std::string_view name = e.name;
    r.add(name, {e.fn, name.starts_with("V_CMP") ? OperandForm::Compare : OperandForm::Vector, e.flags, 0});
  }
}

}  // namespace cdna4::emu
