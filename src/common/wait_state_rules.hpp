#pragma once
// gfx950's wait-state rules: dependencies the hardware does not interlock, so
// code must separate producer and consumer by s_nops or independent instructions.
// One table: the code generator's hazard pass (codegen/isa/hazards.cpp) inserts
// the s_nops it asks for, the emulator (runtime/emulator/hazard_check.cpp)
// reports code that has too few. Each keeps its own matcher (which registers two
// instructions share), both read the rows: a rule fixed here is fixed for both.
//
// The numbers are the CDNA 3 ISA guide's hazard table as LLVM's GCNHazardRecognizer
// applies it to gfx950 (llvm/lib/Target/AMDGPU/GCNHazardRecognizer.cpp), which adds
// one wait state to every rule on an XDL (MFMA) result; clang-22's s_nop counts
// before each MFMA kind's result is read agree.
#include <cstdint>
#include <iterator>

#include "cdna4/race_report.hpp"
#include "common/instruction_class.hpp"

namespace cdna4::gfx950 {

// The classes the rules speak of.
enum class HazardClass : uint8_t { other, mfma, valu, salu, vmem, ds };

constexpr HazardClass hazard_class(InstClass c) {
  if (c == InstClass::mfma) return HazardClass::mfma;
  if (c == InstClass::valu) return HazardClass::valu;
  if (c == InstClass::vmem) return HazardClass::vmem;
  if (c == InstClass::ds) return HazardClass::ds;
  if (is_scalar_alu(c)) return HazardClass::salu;
  return HazardClass::other;
}

constexpr uint8_t bit(HazardClass c) { return uint8_t(1u << int(c)); }

// What a producer must be beyond its class for the rule to start.
enum class ProducerNeeds : uint8_t { none, two_passes, readlane, transcendental, m0_write, exec_write, cmpx };
// What a consumer must be beyond its class.
enum class ConsumerNeeds : uint8_t {
  none, not_transcendental, lds_dma, dpp, lane_access, lane_select, permlane, readlane
};

inline constexpr int kGfx950XdlExtra = 1;  // gfx950: one more wait state after an XDL result

struct WaitStateRule {
  HazardRule id;
  HazardClass producer;
  ProducerNeeds producer_needs;
  uint8_t consumers;  // bits of HazardClass
  ConsumerNeeds consumer_needs;
  int8_t per_pass, constant;  // wait states = per_pass * the producer MFMA's passes + constant
  const char* name;           // stable, for scripts
  const char* text;           // for people
  const char* source;         // where in LLVM's GCNHazardRecognizer
};

using HC = HazardClass;
// In HazardRule order (race_report.hpp), None excepted.
inline constexpr WaitStateRule kWaitStateRules[] = {
    {HazardRule::MfmaResultReadByValuOrMemory, HC::mfma, ProducerNeeds::none,
     uint8_t(bit(HC::valu) | bit(HC::vmem) | bit(HC::ds)), ConsumerNeeds::none, 1, 3 + kGfx950XdlExtra,
     "mfma-result-read-by-valu-or-memory", "MFMA result read by a VALU/memory instruction",
     "checkMAIVALUHazards: XDL write, VALU/VMEM/DS read (XDL N-pass: N + 3)"},
    {HazardRule::MfmaResultOverwrittenByValu, HC::mfma, ProducerNeeds::none, bit(HC::valu), ConsumerNeeds::none, 1,
     3 + kGfx950XdlExtra, "mfma-result-overwritten-by-valu", "MFMA result overwritten by a VALU",
     "checkMAIVALUHazards: XDL write, VALU write (WAW)"},
    {HazardRule::MfmaResultReadAsSrcAB, HC::mfma, ProducerNeeds::none, bit(HC::mfma), ConsumerNeeds::none, 1,
     3 + kGfx950XdlExtra, "mfma-result-read-as-src-ab", "MFMA result read as another MFMA's A/B",
     "checkMAIHazards90A: XDL write, SrcA/B read"},
    {HazardRule::MfmaResultReadAsOtherSrcC, HC::mfma, ProducerNeeds::none, bit(HC::mfma), ConsumerNeeds::none, 1,
     1 + kGfx950XdlExtra, "mfma-result-read-as-other-src-c", "MFMA result read as an overlapping, different SrcC",
     "checkMAIHazards90A: XDL write, overlapped SrcC read"},
    {HazardRule::TwoPassMfmaResultReadAsSrcC, HC::mfma, ProducerNeeds::two_passes, bit(HC::mfma),
     ConsumerNeeds::none, 0, 2, "two-pass-mfma-result-read-as-src-c", "2-pass MFMA result read as SrcC",
     "checkMAIHazards90A: 2-pass XDL write, same SrcC read"},
    {HazardRule::MfmaSrcCOverwritten, HC::mfma, ProducerNeeds::none, uint8_t(bit(HC::valu) | bit(HC::mfma)),
     ConsumerNeeds::none, 1, -1 + kGfx950XdlExtra, "mfma-src-c-overwritten",
     "MFMA SrcC overwritten while the MFMA may still read it", "checkMAIVALUHazards: XDL SrcC read, VALU write (WAR)"},
    {HazardRule::ValuResultReadByMfma, HC::valu, ProducerNeeds::none, bit(HC::mfma), ConsumerNeeds::none, 0, 2,
     "valu-result-read-by-mfma", "VALU result read by an MFMA", "checkMAIHazards90A: VALU write, MFMA read"},
    {HazardRule::ValuSgprReadByVmem, HC::valu, ProducerNeeds::none, bit(HC::vmem), ConsumerNeeds::none, 0, 5,
     "valu-sgpr-read-by-vmem", "VALU-written SGPR read by VMEM", "checkVMEMHazards: VmemSgprWaitStates"},
    {HazardRule::ReadlaneSgprReadByValu, HC::valu, ProducerNeeds::readlane, uint8_t(bit(HC::valu) | bit(HC::mfma)),
     ConsumerNeeds::none, 0, 2, "readlane-sgpr-read-by-valu", "v_readlane/v_readfirstlane SGPR read by a VALU",
     "checkVALUHazards: v_readlane SGPR write, VALU read"},
    {HazardRule::M0WrittenBeforeLdsDma, HC::salu, ProducerNeeds::m0_write, bit(HC::vmem), ConsumerNeeds::lds_dma, 0,
     1, "m0-written-before-lds-dma", "M0 written by SALU just before LDS-DMA",
     "checkVMEMHazards / LDS DMA: SALU M0 write, LDS-DMA load"},
    {HazardRule::TransResultReadByValu, HC::valu, ProducerNeeds::transcendental, bit(HC::valu),
     ConsumerNeeds::not_transcendental, 0, 1, "trans-result-read-by-valu",
     "transcendental result read by a non-transcendental VALU", "hasTransForwardingHazard: TransDefWaitstates"},
    // LLVM counts a write by any instruction for the first; the ISA guide's table (VALU writes VGPR,
    // VALU DPP reads it) and this row count VALU writes: a load's result is waited for by s_waitcnt.
    {HazardRule::ValuResultReadByDpp, HC::valu, ProducerNeeds::none, bit(HC::valu), ConsumerNeeds::dpp, 0, 2,
     "valu-result-read-by-dpp", "VALU result read by a DPP instruction", "checkDPPHazards: DppVgprWaitStates"},
    {HazardRule::ValuExecWriteBeforeDpp, HC::valu, ProducerNeeds::exec_write, bit(HC::valu), ConsumerNeeds::dpp, 0,
     5, "valu-exec-write-before-dpp", "EXEC written by a VALU just before a DPP instruction",
     "checkDPPHazards: DppExecWaitStates"},
    {HazardRule::ValuExecWriteBeforeLaneAccess, HC::valu, ProducerNeeds::exec_write, bit(HC::valu),
     ConsumerNeeds::lane_access, 0, 4, "valu-exec-write-before-lane-access",
     "EXEC written by a VALU just before v_readlane/v_readfirstlane/v_writelane",
     "checkVALUHazards (hasVDecCoExecHazard): VALUWriteEXECRWLane"},
    {HazardRule::ValuSgprReadAsLaneSelect, HC::valu, ProducerNeeds::none, bit(HC::valu), ConsumerNeeds::lane_select,
     0, 4, "valu-sgpr-read-as-lane-select", "VALU-written SGPR read as v_readlane/v_writelane's lane select",
     "checkRWLaneHazards: RWLaneWaitStates"},
    {HazardRule::ValuExecWriteBeforeMfma, HC::valu, ProducerNeeds::exec_write, bit(HC::mfma), ConsumerNeeds::none, 0,
     4, "valu-exec-write-before-mfma", "EXEC written by a VALU just before an MFMA",
     "checkMAIHazards90A: VALUWritesExecWaitStates"},
    {HazardRule::ValuResultReadByPermlaneSwap, HC::valu, ProducerNeeds::none, bit(HC::valu), ConsumerNeeds::permlane,
     0, 2, "valu-result-read-by-permlane-swap", "VALU result read by v_permlane16/32_swap",
     "checkPermlaneHazards (gfx950): VALUWritesVDstWaitStates"},
    {HazardRule::CmpxBeforePermlaneSwap, HC::valu, ProducerNeeds::cmpx, bit(HC::valu), ConsumerNeeds::permlane, 0, 4,
     "cmpx-before-permlane-swap", "EXEC written by v_cmpx just before v_permlane16/32_swap",
     "checkPermlaneHazards (gfx950): VCmpXWritesExecWaitStates"},
    // LLVM counts the consumer's explicit SGPR sources and its VCC read, implicit ones
    // (v_cndmask_b32, v_addc_co_u32 e32) included, not its implicit EXEC read.
    // SALU readers are interlocked; VMEM readers are the row above with 5.
    {HazardRule::ValuSgprReadByValu, HC::valu, ProducerNeeds::none, uint8_t(bit(HC::valu) | bit(HC::mfma)),
     ConsumerNeeds::none, 0, 2, "valu-sgpr-read-by-valu", "VALU-written SGPR or VCC read by a VALU",
     "checkVALUHazards (hasVDecCoExecHazard): VALUWriteSGPRVALUReadWaitstates"},
    {HazardRule::ValuResultReadByReadlane, HC::valu, ProducerNeeds::none, bit(HC::valu), ConsumerNeeds::readlane, 0,
     1, "valu-result-read-by-readlane", "VALU result read by v_readlane/v_readfirstlane",
     "checkVALUHazards (hasVDecCoExecHazard): VALUWriteVGPRReadlaneRead"},
};
static_assert(std::size(kWaitStateRules) == size_t(HazardRule::ValuResultReadByReadlane), "one row per HazardRule");

constexpr const WaitStateRule& wait_state_rule(HazardRule id) { return kWaitStateRules[int(id) - 1]; }

constexpr int wait_states(const WaitStateRule& rule, int passes) { return rule.per_pass * passes + rule.constant; }

// What the rules need to know of one instruction beyond its registers.
struct HazardProfile {
  HazardClass cls = HazardClass::other;
  int passes = 0;  // MFMA passes (0: an MFMA whose passes are unknown starts no rule)
  bool readlane = false, transcendental = false, writes_m0 = false, lds_dma = false;
  bool writes_exec = false, cmpx = false;  // a VALU: v_cmpx_*, or EXEC as a destination; v_cmpx_*
  bool dpp = false, lane_access = false, lane_select = false, permlane = false;  // VALU consumers of the rules above
  // readlane: also the consumer of valu-result-read-by-readlane
};

constexpr bool producer_fits(const WaitStateRule& r, const HazardProfile& p) {
  if (r.producer != p.cls || (p.cls == HazardClass::mfma && p.passes == 0)) return false;
  switch (r.producer_needs) {
    case ProducerNeeds::none: return true;
    case ProducerNeeds::two_passes: return p.passes == 2;
    case ProducerNeeds::readlane: return p.readlane;
    case ProducerNeeds::transcendental: return p.transcendental;
    case ProducerNeeds::m0_write: return p.writes_m0;
    case ProducerNeeds::exec_write: return p.writes_exec;
    case ProducerNeeds::cmpx: return p.cmpx;
  }
  return false;
}

constexpr bool consumer_fits(const WaitStateRule& r, const HazardProfile& c) {
  if (!(r.consumers & bit(c.cls))) return false;
  switch (r.consumer_needs) {
    case ConsumerNeeds::none: return true;
    case ConsumerNeeds::not_transcendental: return !c.transcendental;
    case ConsumerNeeds::lds_dma: return c.lds_dma;
    case ConsumerNeeds::dpp: return c.dpp;
    case ConsumerNeeds::lane_access: return c.lane_access;
    case ConsumerNeeds::lane_select: return c.lane_select;
    case ConsumerNeeds::permlane: return c.permlane;
    case ConsumerNeeds::readlane: return c.readlane;
  }
  return false;
}

// The longest wait any rule can ask after `p` (0: it starts none): a producer older
// than this can be forgotten.
constexpr int longest_wait_after(const HazardProfile& p) {
  int longest = 0;
  for (const WaitStateRule& r : kWaitStateRules)
    if (producer_fits(r, p) && wait_states(r, p.passes) > longest) longest = wait_states(r, p.passes);
  return longest;
}

// The rows a profile can start as producer and end as consumer, as bits 1 << (row index):
// a matcher that keeps them per instruction tests only the rows both ends fit.
constexpr uint32_t rows_started_by(const HazardProfile& p) {
  uint32_t rows = 0;
  for (size_t i = 0; i < std::size(kWaitStateRules); ++i)
    if (producer_fits(kWaitStateRules[i], p)) rows |= 1u << i;
  return rows;
}
constexpr uint32_t rows_ended_by(const HazardProfile& c) {
  uint32_t rows = 0;
  for (size_t i = 0; i < std::size(kWaitStateRules); ++i)
    if (consumer_fits(kWaitStateRules[i], c)) rows |= 1u << i;
  return rows;
}
static_assert(std::size(kWaitStateRules) <= 32, "rows as bits of a uint32_t");

// Only these classes read what the rules guard.
constexpr bool can_consume(HazardClass c) {
  return c == HazardClass::mfma || c == HazardClass::valu || c == HazardClass::vmem || c == HazardClass::ds;
}

}  // namespace cdna4::gfx950
