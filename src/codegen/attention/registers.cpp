// The attention kernel's register map: SGPRs by role, then per-lane VGPRs by
// role and the tiles (Q, S, P, O, K and V fragments) as aligned runs.
#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "codegen/attention/context.hpp"
#include "common/limits.hpp"

namespace cdna4::codegen::attention {

using namespace isa;

namespace {

struct Allocator {
  RegFile file;
  int next = 0;
  Reg take(int count, int align = 1) {
    next = (next + align - 1) / align * align;
    const Reg r{file, uint16_t(next), uint16_t(count)};
    next += count;
    return r;
  }
};

}  // namespace

AttentionRegisters AttentionRegisters::make(const AttentionGeometry& g, int stages, const std::string& name) {
  AttentionRegisters r;
  Allocator sa{RegFile::s, 0};
  r.kernarg = sa.take(2);
  r.wg_x = sa.take(1), r.wg_y = sa.take(1), r.wg_z = sa.take(1);  // s2, s3, s4 (HSA system SGPRs)
  r.ptr_q = sa.take(2, 2), r.ptr_k = sa.take(2, 2), r.ptr_v = sa.take(2, 2), r.ptr_o = sa.take(2, 2);
  r.ptr_lse = sa.take(2, 2);
  r.strides = sa.take(12, 2);
  r.desc_q = sa.take(4, 4), r.desc_k = sa.take(4, 4), r.desc_v = sa.take(4, 4), r.desc_o = sa.take(4, 4);
  r.desc_lse = sa.take(4, 4);
  r.wave = sa.take(1), r.wave_chunk = sa.take(1), r.q0 = sa.take(1), r.head_kv = sa.take(1);
  r.blocks = sa.take(1), r.first_masked = sa.take(1), r.iter = sa.take(1), r.trips = sa.take(1);
  r.c = sa.take(1), r.neg_c = sa.take(1), r.ln2 = sa.take(1), r.neg_inf = sa.take(1);
  r.tmp = sa.take(4, 4);
  r.saved_exec = sa.take(2, 2);
  r.slot_base = sa.take(stages);
  r.sgprs = sa.next;
  if (r.sgprs > gfx950::kAddressableSgprs)
    throw Error(fmt::format("attention schedule {}: {} stages need {} SGPRs, more than the {} a kernel has", name,
                            stages, r.sgprs, gfx950::kAddressableSgprs));

  Allocator va{RegFile::v, 0};
  r.tid = va.take(1), r.lane = va.take(1), r.lane16 = va.take(1), r.group = va.take(1);
  r.addr_tmp = va.take(2), r.out_of_range = va.take(1), r.neg_inf_v = va.take(1);
  r.g2s_k = va.take(1), r.g2s_v = va.take(1), r.g2s_row = va.take(1), r.lds_k = va.take(1), r.lds_v = va.take(1);
  r.visible = va.take(1), r.limit = va.take(1), r.row = va.take(1);
  r.m = va.take(1), r.neg_mc = va.take(1), r.alpha = va.take(1), r.t1 = va.take(1), r.t2 = va.take(1);
  r.l = va.take(4, 4);
  r.first_q = va.take(4 * g.qk_kpacks(), 4).index;
  r.first_s = va.take(4 * g.key_tiles(), 4).index;
  r.first_p = va.take(2 * g.key_tiles(), 4).index;
  r.first_o = va.take(4 * g.d_tiles(), 4).index;
  r.first_kf = va.take(4 * g.qk_kpacks() * g.key_tiles(), 4).index;
  r.first_vf = va.take(2 * g.d_tiles() * g.key_tiles(), 4).index;
  r.vgprs = va.next;
  if (r.vgprs > gfx950::kMaxVgprs)
    throw Error(fmt::format("attention schedule {}: D = {} with block_k = {} needs {} VGPRs (Q, S, P, O and one K and "
                            "one V block in registers); a lane has {}: use a smaller block_k",
                            name, g.dim, g.block_k, r.vgprs, gfx950::kMaxVgprs));
  return r;
}

}  // namespace cdna4::codegen::attention
