#pragma once
// What kind of gfx950 instruction a name is: the one classifier the code
// generator's hazard pass, the emulator's hazard check and the timing model use.
// A name is an assembly mnemonic ("v_mfma_f32_16x16x32_bf16", "buffer_load_dword")
// or an LLVM opcode name as the disassembler gives it ("V_MFMA_F32_16X16X32_BF16_vgprcd_e64",
// "BUFFER_LOAD_DWORD_LDS_OFFEN"); case does not matter.
#include <cstdint>
#include <string_view>

namespace cdna4::gfx950 {

enum class InstClass : uint8_t {
  mfma,     // v_mfma_*, v_smfmac_* (the XDL pipe)
  valu,     // every other v_*
  salu,     // s_* that is none of the kinds below
  smem,     // scalar memory: s_load_*, s_buffer_load_*, s_store_*, s_atomic_*, s_dcache_*
  branch,   // s_branch, s_cbranch_*
  waitcnt,  // s_waitcnt
  barrier,  // s_barrier
  nop,      // s_nop, s_sleep
  setprio,  // s_setprio
  endpgm,   // s_endpgm
  pseudo,   // compiler-only markers with no effect (s_sched_barrier)
  vmem,     // buffer_*, global_*
  flat,     // flat_*, scratch_*
  ds,       // ds_*: LDS
  other,
};

namespace detail {

constexpr char upper(char c) { return c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c; }

constexpr bool starts_with_upper(std::string_view name, std::string_view upper_prefix) {
  if (name.size() < upper_prefix.size()) return false;
  for (size_t i = 0; i < upper_prefix.size(); ++i)
    if (upper(name[i]) != upper_prefix[i]) return false;
  return true;
}

constexpr bool contains_upper(std::string_view name, std::string_view upper_part) {
  for (size_t at = 0; at + upper_part.size() <= name.size(); ++at)
    if (starts_with_upper(name.substr(at), upper_part)) return true;
  return false;
}

struct PrefixClass {
  std::string_view prefix;
  InstClass cls;
};

// First match wins.
inline constexpr PrefixClass kPrefixes[] = {
    {"S_WAITCNT", InstClass::waitcnt},  {"S_BARRIER", InstClass::barrier},   {"S_NOP", InstClass::nop},
    {"S_SLEEP", InstClass::nop},        {"S_SETPRIO", InstClass::setprio},   {"S_ENDPGM", InstClass::endpgm},
    {"S_BRANCH", InstClass::branch},    {"S_CBRANCH", InstClass::branch},    {"S_LOAD", InstClass::smem},
    {"S_BUFFER_LOAD", InstClass::smem}, {"S_STORE", InstClass::smem},        {"S_BUFFER_STORE", InstClass::smem},
    {"S_ATOMIC", InstClass::smem},      {"S_BUFFER_ATOMIC", InstClass::smem}, {"S_DCACHE", InstClass::smem},
    {"S_SCHED_BARRIER", InstClass::pseudo},
    {"S_", InstClass::salu},            {"V_MFMA", InstClass::mfma},         {"V_SMFMAC", InstClass::mfma},
    {"V_", InstClass::valu},            {"DS_", InstClass::ds},              {"BUFFER_", InstClass::vmem},
    {"GLOBAL_", InstClass::vmem},       {"FLAT_", InstClass::flat},          {"SCRATCH_", InstClass::flat},
};

// Transcendental VALU ops: quarter rate, and their results forward late (LLVM's hasTransForwardingHazard).
inline constexpr std::string_view kTranscendentals[] = {"V_EXP_", "V_LOG_", "V_RCP_", "V_RSQ_",
                                                       "V_SQRT_", "V_SIN_", "V_COS_"};

}  // namespace detail

constexpr InstClass classify(std::string_view name) {
  for (const detail::PrefixClass& p : detail::kPrefixes)
    if (detail::starts_with_upper(name, p.prefix)) return p.cls;
  return InstClass::other;
}

constexpr bool is_transcendental(std::string_view name) {
  for (std::string_view t : detail::kTranscendentals)
    if (detail::starts_with_upper(name, t)) return true;
  return false;
}

// v_readlane_* / v_readfirstlane_*: a VALU that writes an SGPR.
constexpr bool is_readlane(std::string_view name) {
  return detail::starts_with_upper(name, "V_READFIRSTLANE") || detail::starts_with_upper(name, "V_READLANE");
}

// v_readlane_* / v_readfirstlane_* / v_writelane_*: a VALU that reads or writes one lane by index.
constexpr bool is_lane_access(std::string_view name) {
  return is_readlane(name) || detail::starts_with_upper(name, "V_WRITELANE");
}

// v_readlane_* / v_writelane_*: the lane index is a source operand (src1).
constexpr bool has_lane_select(std::string_view name) {
  return detail::starts_with_upper(name, "V_READLANE") || detail::starts_with_upper(name, "V_WRITELANE");
}

// v_cmpx_*: a compare that also writes EXEC.
constexpr bool is_cmpx(std::string_view name) { return detail::starts_with_upper(name, "V_CMPX"); }

// v_permlane16_swap_* / v_permlane32_swap_* (gfx950's only v_permlane forms).
constexpr bool is_permlane(std::string_view name) { return detail::starts_with_upper(name, "V_PERMLANE"); }

// A DPP form: the LLVM opcode name ("V_MOV_B32_dpp") or the assembly mnemonic ("v_mov_b32_dpp").
constexpr bool is_dpp(std::string_view name) { return detail::contains_upper(name, "_DPP"); }

// An LLVM opcode name of a buffer load straight into LDS ("BUFFER_LOAD_DWORD_LDS_OFFEN"); in assembly
// the same instruction is buffer_load_* with the `lds` modifier.
constexpr bool is_lds_dma_opcode(std::string_view name) {
  return classify(name) == InstClass::vmem && detail::contains_upper(name, "_LDS");
}

// gfx950's transposing LDS reads (ds_read_b64_tr_b4 / _b8 / _b16, ds_read_b96_tr_b6): each
// 16-lane row of the wave exchanges what its lanes read (common/lds_rules.hpp).
constexpr bool is_lds_transpose_read(std::string_view name) {
  return detail::starts_with_upper(name, "DS_READ_B64_TR") || detail::starts_with_upper(name, "DS_READ_B96_TR");
}

// Scalar instructions that do not touch memory: what the wait-state rules call SALU.
constexpr bool is_scalar_alu(InstClass c) {
  return c == InstClass::salu || c == InstClass::branch || c == InstClass::waitcnt || c == InstClass::barrier ||
         c == InstClass::nop || c == InstClass::setprio || c == InstClass::endpgm || c == InstClass::pseudo;
}

}  // namespace cdna4::gfx950
