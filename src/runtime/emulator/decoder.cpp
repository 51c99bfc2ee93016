// Decodes .text with LLVM's AMDGPU disassembler into the emulator's Program.
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <mutex>

#include "cdna4/error.hpp"
#include "common/instruction_class.hpp"
#include "common/mfma_table.hpp"
#include "runtime/emulator/aperture.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/hazard_check.hpp"
#include "runtime/emulator/lane_modifiers.hpp"
#include "runtime/emulator/program.hpp"
#include "common/limits.hpp"

extern "C" void LLVMInitializeAMDGPUTargetInfo();
extern "C" void LLVMInitializeAMDGPUTargetMC();
extern "C" void LLVMInitializeAMDGPUDisassembler();

namespace cdna4::emu {
namespace {

// One LLVM disassembler for the process; decoding is serialised (it is done once
// per code object, never during execution).
class Disassembler {
 public:
  static Disassembler& get() {
    static Disassembler instance;
    return instance;
  }

  std::mutex mutex;
  std::unique_ptr<llvm::MCRegisterInfo> mri;
  std::unique_ptr<llvm::MCAsmInfo> mai;
  std::unique_ptr<llvm::MCSubtargetInfo> sti;
  std::unique_ptr<llvm::MCInstrInfo> mii;
  std::unique_ptr<llvm::MCContext> ctx;
  std::unique_ptr<llvm::MCDisassembler> disasm;
  std::unique_ptr<llvm::MCInstPrinter> printer;
  int input_mods_type = -1;  // OperandType of VOP3 source modifiers, learnt from V_FMA_F32

 private:
  Disassembler() {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
    llvm::Triple triple("amdgcn-amd-amdhsa");
    std::string err;
    const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, err);
    if (!target) throw Error("emulator: LLVM has no AMDGPU target: " + err);
    mri.reset(target->createMCRegInfo(triple));
    llvm::MCTargetOptions options;
    mai.reset(target->createMCAsmInfo(*mri, triple, options));
    sti.reset(target->createMCSubtargetInfo(triple, "gfx950", ""));
    mii.reset(target->createMCInstrInfo());
    ctx = std::make_unique<llvm::MCContext>(triple, mai.get(), mri.get(), sti.get());
    disasm.reset(target->createMCDisassembler(*sti, *ctx));
    printer.reset(target->createMCInstPrinter(triple, 0, *mai, *mii, *mri));
    if (!disasm || !printer) throw Error("emulator: cannot create the AMDGPU disassembler");
    for (unsigned op = 0; op < mii->getNumOpcodes(); ++op) {
      if (mii->getName(op) == "V_FMA_F32_vi") {
        input_mods_type = mii->get(op).operands()[1].OperandType;
        break;
      }
    }
  }
};

constexpr int kControlTypes[] = {llvm::MCOI::OPERAND_UNKNOWN, llvm::MCOI::OPERAND_IMMEDIATE,
                                 llvm::MCOI::OPERAND_PCREL};

bool is_control_type(int type) {
  for (int t : kControlTypes)
    if (t == type) return true;
  return false;
}

int parse_number(std::string_view s) {
  int v = -1;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// "VGPR10_VGPR11" -> Vgpr 10 x2, "VCC" -> s106 x2, "AGPR3" -> Vgpr accum+3 ...
// Returns an error text for registers the emulator does not model.
std::string register_operand(std::string_view name, uint32_t accum_offset, Operand& op) {
  struct Special {
    std::string_view name;
    OperandKind kind;
    uint16_t index;
    uint8_t dwords;
  };
  static constexpr Special kSpecial[] = {
      {"VCC", OperandKind::Sgpr, sreg::kVccLo, 2},        {"VCC_LO", OperandKind::Sgpr, sreg::kVccLo, 1},
      {"VCC_HI", OperandKind::Sgpr, sreg::kVccLo + 1, 1}, {"EXEC", OperandKind::Sgpr, sreg::kExecLo, 2},
      {"EXEC_LO", OperandKind::Sgpr, sreg::kExecLo, 1},   {"EXEC_HI", OperandKind::Sgpr, sreg::kExecLo + 1, 1},
      {"M0", OperandKind::Sgpr, sreg::kM0, 1},            {"M0_gfxpre11", OperandKind::Sgpr, sreg::kM0, 1},
      {"FLAT_SCR", OperandKind::Sgpr, sreg::kFlatScratchLo, 2},
      {"FLAT_SCR_LO", OperandKind::Sgpr, sreg::kFlatScratchLo, 1},
      {"FLAT_SCR_HI", OperandKind::Sgpr, sreg::kFlatScratchLo + 1, 1},
      {"SCC", OperandKind::Scc, 0, 1},                    {"SRC_SCC", OperandKind::Scc, 0, 1},
      {"SRC_VCCZ", OperandKind::VccZ, 0, 1},              {"SRC_EXECZ", OperandKind::ExecZ, 0, 1},
  };
  for (const auto& s : kSpecial) {
    if (s.name == name) {
      op.kind = s.kind;
      op.index = s.index;
      op.dwords = s.dwords;
      return {};
    }
  }
  // Aperture bases read as 64-bit constants; a 32-bit read sees the low dword (0).
  if (name == "SRC_SHARED_BASE" || name == "SRC_SHARED_BASE_LO" || name == "SRC_PRIVATE_BASE" ||
      name == "SRC_PRIVATE_BASE_LO") {
    op.kind = OperandKind::Imm;
    op.imm = name.starts_with("SRC_SHARED") ? aperture::kSharedBase : aperture::kPrivateBase;
    if (name.ends_with("_LO")) op.imm = 0;
    return {};
  }
  std::string_view prefix = name.substr(0, 4);
  if (prefix != "SGPR" && prefix != "VGPR" && prefix != "AGPR") return fmt::format("register {} is not modelled", name);
  if (name.find("LO16") != std::string_view::npos || name.find("HI16") != std::string_view::npos)
    return fmt::format("16-bit register {} is not modelled", name);
  int first = parse_number(name.substr(4));
  int parts = 1;
  for (char c : name) parts += c == '_';
  if (first < 0) return fmt::format("cannot parse register {}", name);
  op.dwords = static_cast<uint8_t>(parts);
  if (prefix == "SGPR") {
    op.kind = OperandKind::Sgpr;
    op.index = static_cast<uint16_t>(first);
    if (first + parts > sreg::kGeneralCount) return fmt::format("register {} is beyond s{}", name, sreg::kGeneralCount - 1);
    return {};
  }
  op.kind = OperandKind::Vgpr;
  op.is_agpr = prefix == "AGPR";
  uint32_t index = static_cast<uint32_t>(first) + (op.is_agpr ? accum_offset : 0);
  if (index + parts > gfx950::kRegistersPerLane)
    return fmt::format("register {} is beyond the {}-entry register file", name, gfx950::kRegistersPerLane);
  op.index = static_cast<uint16_t>(index);
  return {};
}

struct RawOperands {
  std::vector<Operand> defs;
  std::vector<Operand> values;
  std::vector<int64_t> controls;
};

Operand vcc_operand() {
  Operand op;
  op.kind = OperandKind::Sgpr;
  op.index = sreg::kVccLo;
  op.dwords = 2;
  return op;
}

bool has_suffix(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

constexpr uint8_t kDestinationHalfHigh = 0x80;  // VectorControl src0 while decoding: op_sel[3]

// LLVM's source-modifier operand (SISrcMods): bit 0 neg (neg_lo for VOP3P),
// bit 1 abs (neg_hi for VOP3P), bit 2 op_sel, bit 3 op_sel_hi, bit 4 SDWA sext.
constexpr int64_t kNeg = 1, kAbsOrNegHigh = 2, kOpSel = 4, kOpSelHigh = 8, kSext = 16;

std::string apply_source_modifiers(const HandlerEntry& entry, LaneForm lane, int64_t mods, Operand& op) {
  const OperandForm form = entry.form;
  if (lane == LaneForm::Sdwa && (mods & kSext)) {
    op.packed |= packed_sel::kSignExtend;
    mods &= ~kSext;
  }
  op.neg = (mods & kNeg) != 0;
  if (form == OperandForm::VectorControl || (form == OperandForm::Vector && (entry.flags & hflag::kOpSel))) {
    // Non-packed op_sel: bit 2 selects this source's high half; bit 3 (on
    // src0) the destination's, moved to dst[0] by canonicalize.
    op.abs = (mods & kAbsOrNegHigh) != 0;
    if (mods & kOpSel) op.packed |= packed_sel::kHalfHigh;
    if (mods & kOpSelHigh) op.packed |= kDestinationHalfHigh;
    return (mods & ~(kNeg | kAbsOrNegHigh | kOpSel | kOpSelHigh)) ? "unknown source modifier bits" : "";
  }
  if (form != OperandForm::Packed) {
    op.abs = (mods & kAbsOrNegHigh) != 0;
    return (mods & ~(kNeg | kAbsOrNegHigh)) ? "source modifiers other than neg/abs are not supported" : "";
  }
  if (mods & kAbsOrNegHigh) op.packed |= packed_sel::kNegHigh;
  if (mods & kOpSel) op.packed |= packed_sel::kLowFromHigh;
  if (mods & kOpSelHigh) op.packed |= packed_sel::kHighFromHigh;
  return (mods & ~(kNeg | kAbsOrNegHigh | kOpSel | kOpSelHigh)) ? "unknown packed source modifier bits" : "";
}

// Packed operations read and write 64-bit register pairs; a 32-bit inline
// constant or literal would leave the high half's value up to hardware details
// that are not pinned down, so it is refused rather than guessed.
std::string canonicalize_packed(const HandlerEntry& entry, RawOperands& raw, Inst& in) {
  if (raw.defs.size() != 1 || raw.defs[0].kind != OperandKind::Vgpr || raw.defs[0].dwords != 2)
    return "packed destination must be a VGPR pair";
  in.dst[0] = raw.defs[0];
  for (auto& op : raw.values) {
    if (in.num_src == 4) return "too many packed sources";
    if (!op.is_reg() || op.dwords != 2)
      return "inline constants and literals as packed 64-bit sources are not supported";
    in.src[in.num_src++] = op;
  }
  in.clamp = static_cast<uint8_t>(raw.controls.empty() ? 0 : raw.controls[0]);
  for (size_t i = 1; i < raw.controls.size(); ++i)
    if (raw.controls[i] != 0) return "unexpected packed control operand";
  if (entry.flags & hflag::kPackedSelectOnly) {
    if (in.clamp) return "clamp on a packed move is not supported";
    for (int s = 0; s < in.num_src; ++s) {
      if (in.src[s].neg || (in.src[s].packed & packed_sel::kNegHigh))
        return "neg_lo/neg_hi on a packed move are not supported";
      if (!(in.src[s].packed & packed_sel::kHighFromHigh))
        return "op_sel_hi other than the default on a packed move is not supported";
    }
  }
  return {};
}

// MFMA: src = A, B, C, then for scaled kinds the A / B scale VGPRs. Controls:
// cbsz, abid, blgp (broadcasts: must be 0); f8f6f4 kinds cbsz, blgp as the A / B
// formats, scaled kinds then each scale's op_sel / op_sel_hi (the byte it reads).
// Sparse kinds (LLVM: D, A, B, index, D's tied input): A, B, the accumulator as
// src[2] (where the hazard rules look for SrcC), the index VGPR as src[3];
// cbsz / abid choose the index set, kept in `offset`.
std::string canonicalize_sparse_matrix(const gfx950::MfmaInfo& kind, RawOperands& raw, Inst& in) {
  if (raw.defs.size() != 1 || raw.values.size() != 4 || raw.controls.size() != 2) return "unexpected SMFMAC operands";
  for (int from : {0, 1, 3, 2}) {
    const Operand& op = raw.values[size_t(from)];
    if (op.neg || op.abs) return "MFMA source modifiers are not supported";
    in.src[in.num_src++] = op;
  }
  in.dst[0] = raw.defs[0];
  const Operand& index = in.src[3];
  if (index.kind != OperandKind::Vgpr || index.is_agpr || index.dwords != 1)
    return "SMFMAC index operands other than one VGPR are not modelled";
  const int64_t set = raw.controls[0] == 0 ? raw.controls[1] : 0;
  if (set >= gfx950::sparse_index_sets(kind)) return "abid names an index set this SMFMAC does not have";
  in.offset = set;
  return {};
}

std::string canonicalize_matrix(const HandlerEntry& entry, RawOperands& raw, Inst& in) {
  if (gfx950::kMfmaKinds[entry.aux].sparse) return canonicalize_sparse_matrix(gfx950::kMfmaKinds[entry.aux], raw, in);
  const bool formats = entry.flags & hflag::kMatrixFormats, scaled = entry.flags & hflag::kMatrixScales;
  if (raw.defs.size() != 1 || raw.values.size() != (scaled ? 5u : 3u)) return "unexpected MFMA operands";
  in.dst[0] = raw.defs[0];
  for (const Operand& op : raw.values) {
    if (op.neg || op.abs) return "MFMA source modifiers are not supported";
    in.src[in.num_src++] = op;
  }
  const auto& c = raw.controls;
  if (!formats) {
    for (auto x : c)
      if (x != 0) return "cbsz/abid/blgp broadcast controls are not supported";
    return {};
  }
  if (c.size() != (scaled ? 4u : 2u)) return "unexpected f8f6f4 MFMA controls";
  const auto a = gfx950::f8f6f4_element(int(c[0])), b = gfx950::f8f6f4_element(int(c[1]));
  if (!a || !b) return "cbsz/blgp other than the f8f6f4 format codes 0-4 are not supported";
  const gfx950::MfmaInfo& kind = gfx950::kMfmaKinds[entry.aux];
  if (in.src[0].dwords != gfx950::ab_regs(kind, *a) || in.src[1].dwords != gfx950::ab_regs(kind, *b))
    return "A/B register counts do not match the cbsz/blgp formats";
  int64_t bytes[2] = {0, 0};
  for (int s = 0; scaled && s < 2; ++s) {
    // Hardware reads bits [30:23] of an SGPR or constant scale (LLVM allows VGPRs only).
    if (in.src[3 + s].kind != OperandKind::Vgpr || in.src[3 + s].is_agpr)
      return "MFMA scale operands other than VGPRs are not modelled";
    if (c[2 + s] & ~(kOpSel | kOpSelHigh)) return "MFMA scale modifiers other than op_sel/op_sel_hi are not supported";
    bytes[s] = (c[2 + s] & kOpSel ? 1 : 0) | (c[2 + s] & kOpSelHigh ? 2 : 0);
  }
  in.offset = matrix_sel::pack(c[0], c[1], bytes[0], bytes[1]);
  return {};
}

// FLAT-family instruction offsets: 13-bit signed (global, scratch; flat's are never negative).
int64_t flat_offset(int64_t control) {
  int64_t off = control & 0x1fff;
  return (off & 0x1000) ? off - 0x2000 : off;
}

// Puts raw operands into the canonical Inst fields; returns an error text when
// the instruction uses something the handler does not honour.
std::string canonicalize(const HandlerEntry& entry, const std::string& base, RawOperands& raw, Inst& in) {
  auto& v = raw.values;
  auto& c = raw.controls;
  auto set_srcs = [&](size_t from, size_t to) {
    for (size_t i = from; i < to && in.num_src < 4; ++i) in.src[in.num_src++] = v[i];  // 5: MFMA scales only
  };
  auto control = [&](size_t i) -> int64_t { return i < c.size() ? c[i] : 0; };
  switch (entry.form) {
    case OperandForm::Scalar:
      if (!raw.defs.empty()) in.dst[0] = raw.defs[0];
      if (raw.defs.size() > 1) in.dst[1] = raw.defs[1];
      set_srcs(0, v.size());
      in.offset = control(0);
      break;
    case OperandForm::Program:
      in.offset = control(0);
      break;
    case OperandForm::Vector:
    case OperandForm::Compare: {
      if (!raw.defs.empty()) in.dst[0] = raw.defs[0];
      if (raw.defs.size() > 1) in.dst[1] = raw.defs[1];
      if (entry.form == OperandForm::Compare && raw.defs.empty()) in.dst[0] = vcc_operand();
      if ((entry.flags & hflag::kImplicitVccOut) && raw.defs.size() == 1) in.dst[1] = vcc_operand();
      set_srcs(0, v.size());
      if ((entry.flags & hflag::kImplicitVccIn) && in.num_src == 2) in.src[in.num_src++] = vcc_operand();
      for (int i = 0; i < in.num_src; ++i) {
        if (in.src[i].packed & kDestinationHalfHigh) {
          if (!(entry.flags & hflag::kOpSelDestination)) return "op_sel on the destination is not supported";
          in.dst[0].packed |= packed_sel::kHalfHigh;
          in.src[i].packed &= ~kDestinationHalfHigh;
        }
        const bool select_allowed = (entry.flags & hflag::kOpSelSources) || ((entry.flags & hflag::kOpSelShiftSource) && i == 2);
        if ((in.src[i].packed & packed_sel::kHalfHigh) && !select_allowed) return "op_sel on this source is not supported";
      }
      in.clamp = static_cast<uint8_t>(control(0));
      in.omod = static_cast<uint8_t>(control(1));
      for (size_t i = 2; i < c.size(); ++i)
        if (c[i] != 0) return "op_sel/extra modifiers are not supported";
      if ((entry.flags & hflag::kSourceModifiersOnly) && (in.clamp || in.omod))
        return "clamp/omod on this operation are not supported";
      if (!(entry.flags & (hflag::kFloatModifiers | hflag::kSourceModifiersOnly))) {
        for (int i = 0; i < in.num_src; ++i)
          if (in.src[i].neg || in.src[i].abs) return "neg/abs modifiers on an integer operation are not supported";
        if ((in.clamp && !(entry.flags & hflag::kIntegerClamp)) || in.omod)
          return "clamp/omod on an integer operation are not supported";
      }
      break;
    }
    case OperandForm::ScalarMemory:
      if (!raw.defs.empty()) in.dst[0] = raw.defs[0];
      set_srcs(0, v.size());
      in.offset = (has_suffix(base, "_IMM") || has_suffix(base, "_IMM_RTN")) ? control(0) : 0;
      break;
    case OperandForm::LocalMemory:
      if (!raw.defs.empty()) in.dst[0] = raw.defs[0];
      set_srcs(0, v.size());
      in.offset = control(0);
      if (base.find("2_") != std::string::npos || base.find("2ST64_") != std::string::npos)
        in.offset = control(0) | (control(1) << 8);
      break;
    case OperandForm::BufferMemory: {
      if (!raw.defs.empty()) in.dst[0] = raw.defs[0];
      size_t rsrc = v.size();
      for (size_t i = 0; i < v.size(); ++i)
        if (v[i].kind == OperandKind::Sgpr && v[i].dwords == 4) { rsrc = i; break; }
      if (rsrc + 1 >= v.size()) return "cannot find the buffer resource operand";
      bool store = base.find("_STORE_") != std::string::npos || base.find("_ATOMIC_") != std::string::npos;
      size_t next = 0;
      if (store) in.src[0] = v[next++];
      if (next < rsrc) in.src[1] = v[next++];
      in.src[2] = v[rsrc];
      in.src[3] = v[rsrc + 1];
      in.num_src = 4;
      in.offset = control(0);
      for (size_t i = 2; i < c.size(); ++i)
        if (c[i] != 0) return "tfe/swz buffer bits are not supported";
      break;
    }
    case OperandForm::GlobalMemory:
    case OperandForm::ScratchMemory: {
      // Global: vaddr, then the data (stores, atomics). Scratch: LLVM lists a
      // store's data first, then the address if the form has one.
      if (!raw.defs.empty()) in.dst[0] = raw.defs[0];
      const bool store = base.find("_STORE_") != std::string::npos;
      const bool scratch = entry.form == OperandForm::ScratchMemory;
      int vgprs = 0;
      for (auto& op : v) {
        if (op.kind == OperandKind::Sgpr) {
          in.src[2] = op;
        } else if (op.kind == OperandKind::Vgpr) {
          const bool data = scratch ? store && vgprs == 0 : vgprs > 0;
          in.src[data ? 1 : 0] = op;
          ++vgprs;
        } else {
          return "unexpected immediate operand";
        }
      }
      if (store && (in.src[1].kind != OperandKind::Vgpr || (!scratch && vgprs != 2)))
        return "cannot find address and data operands";
      in.num_src = 3;
      in.offset = flat_offset(control(0));
      break;
    }
    case OperandForm::Packed:
      return canonicalize_packed(entry, raw, in);
    case OperandForm::VectorControl:
      if (!raw.defs.empty()) in.dst[0] = raw.defs[0];
      if (raw.defs.size() > 1) in.dst[1] = raw.defs[1];
      set_srcs(0, v.size());
      if (c.size() > 8) return "too many control operands";
      for (size_t i = 0; i < c.size(); ++i) in.offset |= (c[i] & 0xff) << (8 * i);
      for (int i = 0; i < in.num_src; ++i) {
        if (in.src[i].neg || in.src[i].abs) return "neg/abs modifiers on this operation are not supported";
        if (in.src[i].packed & kDestinationHalfHigh) in.dst[0].packed |= packed_sel::kHalfHigh;
        in.src[i].packed &= ~kDestinationHalfHigh;
      }
      break;
    case OperandForm::Matrix:
      return canonicalize_matrix(entry, raw, in);
  }
  return {};
}

AsyncClass async_class_of(OperandForm form) {
  switch (form) {
    case OperandForm::ScalarMemory: return AsyncClass::Scalar;
    case OperandForm::LocalMemory: return AsyncClass::Lds;
    case OperandForm::BufferMemory:
    case OperandForm::GlobalMemory:
    case OperandForm::ScratchMemory: return AsyncClass::Vector;
    default: return AsyncClass::None;
  }
}

void add_access(Inst& in, const Operand& op, bool write) {
  uint32_t end = uint32_t(op.index) + op.dwords;
  if (op.kind == OperandKind::Vgpr) in.vgpr_end = uint16_t(std::max<uint32_t>(in.vgpr_end, end));
  if (op.kind == OperandKind::Sgpr && op.index < sreg::kGeneralCount)
    in.sgpr_end = uint8_t(std::max<uint32_t>(in.sgpr_end, std::min<uint32_t>(end, sreg::kGeneralCount)));
  if (!op.is_reg() || in.num_access >= std::size(in.access)) return;
  in.access[in.num_access++] = RegAccess{op.index, op.dwords, op.kind == OperandKind::Vgpr, write};
}


}  // namespace

Handler unsupported_instruction_handler();  // wave_dispatch.cpp

std::string Program::describe(const Inst& in) const {
  return fmt::format("'{}' ({}) at 0x{:x}", disasm[in.id], names[in.id], in.pc);
}

static std::shared_ptr<Program> decode_uncached(const std::vector<uint8_t>& text, uint32_t accum_offset) {
  auto& d = Disassembler::get();
  const auto& registry = handler_registry();
  auto program = std::make_shared<Program>();
  program->accum_offset = accum_offset;
  program->index_of_dword.assign((text.size() + 3) / 4, -1);
  std::lock_guard lock(d.mutex);
  llvm::ArrayRef<uint8_t> bytes(text.data(), text.size());
  std::vector<std::pair<uint32_t, int64_t>> branches;  // inst id, simm16
  for (uint64_t pc = 0; pc + 4 <= text.size();) {
    llvm::MCInst mc;
    uint64_t size = 0;
    Inst in;
    in.id = static_cast<uint32_t>(program->insts.size());
    in.pc = static_cast<uint32_t>(pc);
    std::string name, printed, error;
    auto status = d.disasm->getInstruction(mc, size, bytes.slice(pc), pc, llvm::nulls());
    if (status != llvm::MCDisassembler::Success || size == 0) {
      size = 4;
      uint32_t word = text[pc] | text[pc + 1] << 8 | text[pc + 2] << 16 | uint32_t(text[pc + 3]) << 24;
      name = "<invalid>";
      printed = fmt::format(".long 0x{:08x}", word);
      error = "cannot be decoded as a gfx950 instruction";
    } else {
      name = d.mii->getName(mc.getOpcode()).str();
      llvm::raw_string_ostream os(printed);
      d.printer->printInst(&mc, pc, "", *d.sti, os);
      os.flush();
      size_t start = printed.find_first_not_of(" \t");
      printed = start == std::string::npos ? printed : printed.substr(start);
      std::string base = base_opcode_name(name);
      const LaneForm lane = lane_form_of(name);
      const HandlerEntry* entry = registry.find(base);
      if (!entry) {
        error = "unsupported instruction";
      } else if (lane != LaneForm::None && entry->form != OperandForm::Vector && entry->form != OperandForm::Compare) {
        error = "DPP / SDWA form of this operation is not modelled";
      } else {
        const llvm::MCInstrDesc& desc = d.mii->get(mc.getOpcode());
        RawOperands raw;
        int64_t pending_mods = 0;
        for (unsigned i = 0; i < mc.getNumOperands() && error.empty(); ++i) {
          const llvm::MCOperand& mop = mc.getOperand(i);
          int type = i < desc.getNumOperands() ? desc.operands()[i].OperandType : llvm::MCOI::OPERAND_UNKNOWN;
          if (i < desc.getNumOperands() && type == d.input_mods_type && mop.isImm()) {
            pending_mods = mop.getImm();
            continue;
          }
          if (lane == LaneForm::Dpp && i == desc.getNumDefs() && mop.isReg() &&
              desc.getOperandConstraint(i, llvm::MCOI::TIED_TO) == 0)
            continue;  // DPP "old": the destination's value, kept in lanes that do not execute
          if (mop.isReg()) {
            Operand op;
            error = register_operand(d.mri->getName(mop.getReg()), accum_offset, op);
            if (error.empty()) error = apply_source_modifiers(*entry, lane, pending_mods, op);
            pending_mods = 0;
            (i < desc.getNumDefs() ? raw.defs : raw.values).push_back(op);
          } else if (mop.isImm()) {
            if (is_control_type(type) || i >= desc.getNumOperands()) {
              raw.controls.push_back(mop.getImm());
            } else {
              Operand op;
              op.kind = OperandKind::Imm;
              op.imm = static_cast<uint64_t>(mop.getImm());
              error = apply_source_modifiers(*entry, lane, pending_mods, op);
              pending_mods = 0;
              raw.values.push_back(op);
            }
          } else {
            error = "symbolic operand cannot be executed";
          }
        }
        LaneControls lane_controls;
        if (error.empty() && lane != LaneForm::None)
          error = take_lane_controls(lane, raw.values.size(), raw.controls, lane_controls);
        if (error.empty()) error = canonicalize(*entry, base, raw, in);
        if (error.empty()) {
          in.exec = entry->fn;
          in.aux = entry->aux;
          if (lane != LaneForm::None) error = attach_lane_modifier(lane, lane_controls, in, *program);
        }
        if (error.empty()) {
          in.async = async_class_of(entry->form);
          if (entry->flags & hflag::kBranch) branches.emplace_back(in.id, static_cast<int16_t>(in.offset));
          for (auto& op : in.dst) add_access(in, op, true);
          for (int s = 0; s < in.num_src; ++s) add_access(in, in.src[s], false);
        }
      }
    }
    if (!error.empty()) in.exec = unsupported_instruction_handler();
    in.size = static_cast<uint32_t>(size);
    program->index_of_dword[pc / 4] = static_cast<int32_t>(in.id);
    program->insts.push_back(in);
    program->names.push_back(std::move(name));
    program->disasm.push_back(std::move(printed));
    program->errors.push_back(std::move(error));
    pc += size;
  }
  for (auto [id, simm16] : branches) {
    Inst& in = program->insts[id];
    int64_t target_pc = static_cast<int64_t>(in.pc) + 4 + simm16 * 4;
    int32_t target = target_pc >= 0 ? program->index_at(static_cast<uint64_t>(target_pc)) : -1;
    if (target < 0) {
      in.exec = unsupported_instruction_handler();
      program->errors[id] = fmt::format("branch target 0x{:x} is not an instruction", target_pc);
    } else {
      in.target = static_cast<uint32_t>(target);
    }
  }
  program->hazard = hazard_profiles(*program);
  for (const std::string& name : program->names) program->lds_transpose.push_back(gfx950::is_lds_transpose_read(name));
  program->hazard_rows = hazard_rows(*program);
  return program;
}

std::shared_ptr<const Program> decode_program(const std::vector<uint8_t>& text, uint32_t accum_offset) {
  struct CacheEntry {
    std::vector<uint8_t> text;
    uint32_t accum_offset;
    std::shared_ptr<const Program> program;
  };
  static std::mutex mutex;
  static std::vector<CacheEntry> cache;  // most recent last; small, compared by content
  constexpr size_t kCacheSize = 32;
  {
    std::lock_guard lock(mutex);
    for (auto& e : cache)
      if (e.accum_offset == accum_offset && e.text == text) return e.program;
  }
  std::shared_ptr<const Program> program = decode_uncached(text, accum_offset);
  std::lock_guard lock(mutex);
  if (cache.size() >= kCacheSize) cache.erase(cache.begin());
  cache.push_back({text, accum_offset, program});
  return program;
}

}  // namespace cdna4::emu
