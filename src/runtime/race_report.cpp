// Names and the human-readable text of race and hazard reports.
#include "cdna4/race_report.hpp"

#include <fmt/format.h>

#include "common/wait_state_rules.hpp"

namespace cdna4 {
namespace {

// A hazard's rule, or none: its row in the wait-state table.
const gfx950::WaitStateRule* row_of(HazardRule rule) {
  const auto i = size_t(rule);
  return i >= 1 && i <= std::size(gfx950::kWaitStateRules) ? &gfx950::wait_state_rule(rule) : nullptr;
}

const char* counter_of(MissingWait m) {
  switch (m) {
    case MissingWait::Vmcnt:
    case MissingWait::VmcntAndBarrier: return "vmcnt";
    case MissingWait::Lgkmcnt:
    case MissingWait::LgkmcntAndBarrier: return "lgkmcnt";
    default: return "";
  }
}

std::string lds_text(const RaceLocation& l) { return fmt::format("LDS 0x{:x} ({} bytes)", l.first, l.count); }

std::string register_text(const RaceLocation& l) {
  const char* prefix = l.space == RaceLocation::Space::Vgpr ? "v" : l.space == RaceLocation::Space::Agpr ? "a" : "s";
  if (l.count <= 1) return fmt::format("{}{}", prefix, l.first);
  return fmt::format("{}[{}:{}]", prefix, l.first, l.first + l.count - 1);
}

std::string detail(const RaceReport& r) {
  const RaceLocation& l = r.location;
  switch (r.kind) {
    case RaceKind::RegisterRead:
    case RaceKind::RegisterOverwrite:
      return fmt::format("{} {} while '{}' (at 0x{:x}) loading it has not been waited for with s_waitcnt {}",
                         r.kind == RaceKind::RegisterRead ? "reads" : "overwrites", register_text(l),
                         r.other_instruction, r.other_pc, counter_of(r.missing));
    case RaceKind::LdsReadAfterWrite:
    case RaceKind::LdsWriteAfterRead:
    case RaceKind::LdsWriteAfterWrite: {
      const bool reads = r.kind == RaceKind::LdsReadAfterWrite;
      const bool other_reads = r.kind == RaceKind::LdsWriteAfterRead;
      const std::string between =
          r.missing == MissingWait::Barrier
              ? "without an s_barrier after its s_waitcnt"
              : fmt::format("without s_waitcnt {} and s_barrier between the two", counter_of(r.missing));
      return fmt::format("{} {} which wave {} {} with '{}' (at 0x{:x}) {}", reads ? "reads" : "writes", lds_text(l),
                         r.other_wave, other_reads ? "reads" : "writes", r.other_instruction, r.other_pc, between);
    }
    case RaceKind::LdsDsAndDma:
      return fmt::format("accesses {} which this wave also accesses with '{}' (at 0x{:x}) on the other queue "
                         "(DS / LDS-DMA) without s_waitcnt {} between the two",
                         lds_text(l), r.other_instruction, r.other_pc, counter_of(r.missing));
    case RaceKind::Hazard:
      return fmt::format("hazard: {} needs {} wait state{} after '{}' at 0x{:x}, only {} passed (missing s_nop)",
                         row_of(r.rule) ? row_of(r.rule)->text : "an unknown rule", r.wait_states_needed, r.wait_states_needed == 1 ? "" : "s",
                         r.other_instruction, r.other_pc, r.wait_states_passed);
  }
  return {};
}

}  // namespace

const char* to_string(RaceKind kind) {
  switch (kind) {
    case RaceKind::RegisterRead: return "register-read";
    case RaceKind::RegisterOverwrite: return "register-overwrite";
    case RaceKind::LdsReadAfterWrite: return "lds-read-after-write";
    case RaceKind::LdsWriteAfterRead: return "lds-write-after-read";
    case RaceKind::LdsWriteAfterWrite: return "lds-write-after-write";
    case RaceKind::LdsDsAndDma: return "lds-ds-and-dma";
    case RaceKind::Hazard: return "hazard";
  }
  return "?";
}

const char* to_string(MissingWait missing) {
  switch (missing) {
    case MissingWait::Vmcnt: return "vmcnt";
    case MissingWait::Lgkmcnt: return "lgkmcnt";
    case MissingWait::Barrier: return "barrier";
    case MissingWait::VmcntAndBarrier: return "vmcnt+barrier";
    case MissingWait::LgkmcntAndBarrier: return "lgkmcnt+barrier";
    case MissingWait::WaitStates: return "wait-states";
  }
  return "?";
}

const char* to_string(HazardRule rule) {
  if (rule == HazardRule::None) return "none";
  return row_of(rule) ? row_of(rule)->name : "?";
}

std::string to_string(const RaceLocation& location) {
  switch (location.space) {
    case RaceLocation::Space::None: return "-";
    case RaceLocation::Space::Lds: return fmt::format("lds:0x{:x}+{}", location.first, location.count);
    default: return register_text(location);
  }
}

std::string describe(const RaceReport& r) {
  return fmt::format("race at pc 0x{:x} '{}' in workgroup ({},{},{}) wave {}: {}", r.pc, r.instruction,
                     r.workgroup[0], r.workgroup[1], r.workgroup[2], r.wave, detail(r));
}

}  // namespace cdna4
