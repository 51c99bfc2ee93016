#include "runtime/model/instruction_class.hpp"

#include <string_view>
#include <utility>

#include "common/instruction_class.hpp"
#include "common/mfma_coexec.hpp"
#include "common/mfma_table.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "common/limits.hpp"
#include "runtime/model/parameters.hpp"

namespace cdna4::model {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

Category category_of(Kind k) {
  switch (k) {
    case Kind::valu:
    case Kind::mfma: return Category::valu;
    case Kind::salu:
    case Kind::smem: return Category::salu;
    case Kind::vmem_load:
    case Kind::vmem_store: return Category::vmem;
    case Kind::lds: return Category::lds;
    case Kind::branch: return Category::branch;
    default: return Category::internal;
  }
}

Kind kind_of(const emu::Inst& in, std::string_view name) {
  using gfx950::InstClass;
  switch (gfx950::classify(name)) {
    case InstClass::mfma: return Kind::mfma;
    case InstClass::salu: return Kind::salu;
    case InstClass::smem: return Kind::smem;
    case InstClass::branch: return Kind::branch;
    case InstClass::waitcnt: return Kind::waitcnt;
    case InstClass::barrier: return Kind::barrier;
    case InstClass::nop: return Kind::nop;
    case InstClass::setprio: return Kind::setprio;
    case InstClass::endpgm: return Kind::endpgm;
    case InstClass::pseudo: return Kind::other_internal;
    case InstClass::ds: return Kind::lds;
    case InstClass::vmem:
    case InstClass::flat: {
      const bool stores = name.find("STORE") != std::string_view::npos ||
                          (name.find("ATOMIC") != std::string_view::npos && in.dst[0].kind == emu::OperandKind::None);
      return stores ? Kind::vmem_store : Kind::vmem_load;
    }
    case InstClass::valu:
    case InstClass::other: break;
  }
  return Kind::valu;
}

// Bytes per lane of a load named ..._{UBYTE,SBYTE,USHORT,SSHORT,DWORD,DWORDX2,X3,X4}...
uint16_t lane_bytes(std::string_view name) {
  constexpr std::pair<std::string_view, uint16_t> kSizes[] = {{"DWORDX4", 16}, {"DWORDX3", 12}, {"DWORDX2", 8},
                                                              {"DWORD", 4},    {"SHORT", 2},    {"BYTE", 1}};
  for (auto [size, bytes] : kSizes)
    if (name.find(size) != std::string_view::npos) return bytes;
  return 4;
}

MacClass mac_class_of(const gfx950::MfmaInfo& kind, uint8_t passes) {
  if (kind.f8f6f4) return passes < kind.passes ? MacClass::narrow : MacClass::bits8;
  return gfx950::bits_of(kind.element) <= 8 ? MacClass::bits8 : MacClass::bits16;
}

}  // namespace

std::vector<InstTiming> classify(const emu::Program& program) {
  std::vector<InstTiming> out(program.insts.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const emu::Inst& in = program.insts[i];
    InstTiming& t = out[i];
    t.kind = kind_of(in, program.names[i]);
    t.category = category_of(t.kind);
    t.wave_private = starts_with(program.names[i], "SCRATCH_");
    const uint32_t imm = static_cast<uint32_t>(in.offset);
    switch (t.kind) {
      case Kind::waitcnt:  // gfx9: vmcnt bits 3:0 and 15:14, lgkmcnt 11:8
        t.vmcnt = (imm & 0xf) | (((imm >> 14) & 3) << 4);
        t.lgkmcnt = (imm >> 8) & 0xf;
        break;
      case Kind::nop: t.nop_slots = starts_with(program.names[i], "S_SLEEP") ? 64 * (imm & 0x7f) / 4 : gfx950::nop_wait_states(imm); break;
      case Kind::setprio: t.priority = imm & 3; break;
      case Kind::mfma:
        t.mfma_passes = program.hazard[i].passes ? program.hazard[i].passes : 4;
        {
          const gfx950::MfmaInfo* kind = gfx950::find_mfma(emu::base_opcode_name(program.names[i]));
          if (kind) {
            t.macs = uint32_t(kind->m) * kind->n * kind->k;
            t.mac_class = mac_class_of(*kind, t.mfma_passes);
          }
          const gfx950::MfmaCoExec co = gfx950::mfma_coexec(4u * in.src[0].dwords, 4u * in.src[1].dwords,
                                                            t.mfma_passes, kind && kind->sparse);
          t.valu_hold_slots = co.valu_slot;
          t.packed_hold_slots = co.packed_f32_slot;
        }
        t.dst_first = in.dst[0].index;
        t.dst_count = in.dst[0].dwords;
        if (in.src[2].kind == emu::OperandKind::Vgpr) {
          t.acc_first = in.src[2].index;
          t.acc_count = in.src[2].dwords;
        }
        break;
      case Kind::valu:
        t.packed_f32 = gfx950::packed_f32_or_dot(program.names[i]);
        t.valu_clocks = uint8_t(gfx950::is_transcendental(program.names[i]) ? as_int(param::kTranscendentalClocks)
                                                                             : as_int(param::kIssuePeriod));
        break;
      case Kind::vmem_load:
        if (program.hazard[i].lds_dma) t.lds_dma_bytes = uint16_t(64 * lane_bytes(program.names[i]));
        break;
      default: break;
    }
  }
  return out;
}

}  // namespace cdna4::model
