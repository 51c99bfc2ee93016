// An attention schedule and shape -> gfx950 code: entry, the KV loop, the O
// and LSE store; hazard nops; the kernel descriptor.
#include "codegen/attention/lower_attention.hpp"

#include <cmath>

#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "codegen/attention/context.hpp"
#include "codegen/isa/hazards.hpp"
#include "common/limits.hpp"

namespace cdna4::codegen {

namespace {

constexpr size_t kMaxInstructions = 16384;       // branches take 16-bit dword offsets
constexpr int64_t kMaxLength = int64_t(1) << 30;  // SALU / VALU key and row arithmetic stays in 32 bits

std::string shape_text(const AttentionShape& s) {
  return fmt::format("B={} Nq={} Nk={} H={} Hkv={} D={}{}", s.batch, s.seqlen_q, s.seqlen_k, s.heads, s.heads_kv,
                     s.dim, s.causal ? " causal" : "");
}

}  // namespace

void check_attention_shape(const AttentionSchedule& schedule, const AttentionShape& sh) {
  const auto fail = [&](const std::string& why) {
    throw Error(fmt::format("attention shape {}: {}", shape_text(sh), why));
  };
  if (sh.batch < 1 || sh.seqlen_q < 1 || sh.seqlen_k < 1 || sh.heads < 1 || sh.heads_kv < 1)
    fail("B, Nq, Nk, H and Hkv must each be at least 1");
  if (sh.heads % sh.heads_kv != 0) fail("H must be a multiple of Hkv");
  if (sh.dim != schedule.dim)
    fail(fmt::format("schedule {} is for D = {}, the shape has D = {}", schedule.name, schedule.dim, sh.dim));
  if (sh.out != OutType::bf16 && sh.out != OutType::f32) fail("O must be bf16 or f32");
  const float scale = sh.softmax_scale();
  if (!std::isfinite(scale) || scale <= 0) fail(fmt::format("the scale must be finite and positive, got {}", scale));
  if (sh.seqlen_q >= kMaxLength || sh.seqlen_k >= kMaxLength)
    fail(fmt::format("Nq and Nk must stay below 2^30 (the kernel's row arithmetic is 32-bit)"));
  const int64_t x = (sh.seqlen_q + schedule.block_q - 1) / schedule.block_q;
  if (x * schedule.waves * gfx950::kWaveSize > int64_t(UINT32_MAX) || sh.heads > int64_t(UINT32_MAX) ||
      sh.batch > int64_t(UINT32_MAX))
    fail("the grid exceeds the 32-bit grid size of a dispatch");
  if (sh.lse && sh.batch * sh.heads * sh.seqlen_q * 4 >= (int64_t(1) << 31))
    fail("the LSE ([B][H][Nq] fp32) must stay below 2 GiB");
}

std::string LoweredAttention::assembly() const {
  return kernel_prologue_directives(spec) + code.text() + kernel_epilogue_directives(spec);
}

LoweredAttention lower_attention(const AttentionSchedule& s, const AttentionShape& shape, const std::string& name) {
  check_attention_shape(s, shape);
  attention::AttentionContext ctx(s, shape);
  attention::emit_entry(ctx);
  attention::emit_kv_loop(ctx);
  attention::emit_store(ctx);
  ctx.code.s_endpgm();

  LoweredAttention out;
  out.code = isa::insert_hazard_nops(std::move(ctx.code));
  if (out.code.instruction_count() > kMaxInstructions)
    throw Error(fmt::format("attention schedule {} for {}: {} instructions, more than the {} a kernel may have", s.name,
                            shape_text(shape), out.code.instruction_count(), kMaxInstructions));
  out.loop_instructions = ctx.loop_instructions;
  KernelSpec& spec = out.spec;
  spec.name = name;
  spec.vgprs = uint32_t(ctx.regs.vgprs);
  spec.sgprs = uint32_t(ctx.regs.sgprs);
  spec.lds_bytes = uint32_t(ctx.geo.lds_bytes());
  spec.workgroup_size = uint32_t(s.waves * gfx950::kWaveSize);
  spec.workgroup_id_y = true;
  spec.workgroup_id_z = true;
  spec.args = {{"q"}, {"k"}, {"v"}, {"o"}, {"lse"}};
  for (const char* tensor : {"q", "k", "v", "o"})
    for (const char* which : {"batch", "seq", "head"})
      spec.args.push_back({fmt::format("{}_{}_stride_bytes", tensor, which), KernelArgSpec::Kind::by_value, 4});
  return out;
}

}  // namespace cdna4::codegen
