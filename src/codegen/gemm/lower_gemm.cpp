#include "codegen/gemm/lower_gemm.hpp"

#include <algorithm>
#include <bit>
#include <optional>

#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "common/checked.hpp"
#include "codegen/gemm/context.hpp"
#include "codegen/isa/hazards.hpp"

namespace cdna4::codegen {

namespace {

constexpr int64_t kMaxOperandBytes = int64_t(1) << 30;  // lane offsets stay below the out-of-range marks
constexpr size_t kMaxInstructions = 16384;

bool power_of_two(int v) { return v > 0 && std::has_single_bit(unsigned(v)); }

void check_supported(const Schedule& s) {
  auto fail = [&](const std::string& why) { throw Error(fmt::format("schedule {}: {}", s.name, why)); };
  for (Operand op : {Operand::a, Operand::b}) {
    const int bits = element_bits(operand_type(s, op));
    if (k_major(s.layout, op) && bits != 16 && bits != 8)
      fail(fmt::format("layout \"{}\" stores {} with K as its slow dimension, which is lowered for 16- and 8-bit "
                       "types (transposing LDS reads), not for {}; store it with K contiguous",
                       to_string(s.layout), to_string(op), to_string(operand_type(s, op))));
  }
  if (s.type_acc != DataType::f32) fail("only fp32 accumulation is lowered");
  if (!power_of_two(s.wave_grid_n) || !power_of_two(kpacks(s)))
    fail(fmt::format("wave_grid.n ({}) and tile.k / mfma k ({}) must be powers of two", s.wave_grid_n, kpacks(s)));
  if (s.pingpong_groups > 2) fail("at most 2 ping-pong groups");
}

}  // namespace

// Strides: non-negative, whole 16-byte steps for A and B (rows start on 16
// bytes), C matrices that do not overlap (their stores would race), and byte
// strides below 4 GiB (the kernel forms batch * stride with 32-bit multiplies).
static void validate_batch(const GemmShape& sh, Layout layout, int bits_a, int bits_b, int64_t c_bytes) {
  auto fail = [&](const std::string& why) { throw Error(fmt::format("shape {}: {}", sh.to_string(), why)); };
  if (sh.batch < 1) fail(fmt::format("batch must be at least 1, got {}", sh.batch));
  if (sh.stride_a < 0 || sh.stride_b < 0 || sh.stride_c < 0) fail("strides must not be negative");
  if (sh.batch == 1) return;
  constexpr int64_t kLarge = int64_t(1) << 40;  // past any stride the byte check below accepts
  if (sh.stride_a > kLarge || sh.stride_b > kLarge || sh.stride_c > kLarge) fail("each stride must stay below 4 GiB");
  const int64_t stride_a = sh.stride(layout, Operand::a), stride_b = sh.stride(layout, Operand::b);
  if (stride_a % element_granule(bits_a) != 0 || stride_b % element_granule(bits_b) != 0)
    fail(fmt::format("stride_a must be a multiple of {} and stride_b of {} elements (each matrix starts on 16 bytes)",
                     element_granule(bits_a), element_granule(bits_b)));
  const int64_t c_extent = (sh.m - 1) * sh.c_ld() + sh.n;
  if (sh.c_stride() < c_extent)
    fail(fmt::format("stride_c {} is smaller than one C matrix ({} elements): the batch's stores would overlap",
                     sh.c_stride(), c_extent));
  for (const int64_t bytes : {stride_a * bits_a / 8, stride_b * bits_b / 8, sh.c_stride() * c_bytes})
    if (bytes >= (int64_t(1) << 32)) fail("each stride must stay below 4 GiB");
}

void validate_shape(const GemmShape& sh, Layout layout, int bits_a, int bits_b) {
  auto fail = [&](const std::string& why) { throw Error(fmt::format("shape {}: {}", sh.to_string(), why)); };
  const int granule_a = element_granule(bits_a), granule_b = element_granule(bits_b);
  const int granule = std::max(granule_a, granule_b);  // 8, 16, 32 or 64: the larger is a multiple of the other
  if (sh.m < 1 || sh.n < 1 || sh.k < 1) fail("M, N and K must be at least 1");
  if (sh.k % granule != 0)
    fail(fmt::format("K must be a multiple of {0} ({1}); pad A and B with zero columns to K={2} (run_gemm does this)",
                     granule, granule == 64 ? "6-bit rows are loaded in 48-byte groups of 64 elements"
                                            : fmt::format("each lane loads {} consecutive k, 16 bytes", granule),
                     checked::ceil_div<int64_t>(sh.k, granule) * granule));
  const int64_t lda = sh.ld(layout, Operand::a), ldb = sh.ld(layout, Operand::b);
  if (lda < sh.stored_cols(layout, Operand::a) || ldb < sh.stored_cols(layout, Operand::b) || sh.c_ld() < sh.n)
    fail(fmt::format("a leading dimension is smaller than its row (layout {}: A rows of {}, B rows of {}, C rows of {})",
                     to_string(layout), sh.stored_cols(layout, Operand::a), sh.stored_cols(layout, Operand::b), sh.n));
  if (lda % granule_a != 0 || ldb % granule_b != 0)
    fail(granule_a == granule_b
             ? fmt::format("lda and ldb must be multiples of {} elements (rows start on 16 bytes)", granule_a)
             : fmt::format("lda must be a multiple of {} and ldb of {} elements (rows start on 16 bytes)", granule_a,
                           granule_b));
  const int64_t c_elem = element_bytes(*sh.out);
  validate_batch(sh, layout, bits_a, bits_b, c_elem);
  // The buffer descriptors' num_records is 32 bits and lane offsets must stay
  // below the out-of-range marks: each operand, rows * leading dimension, < 1 GiB.
  const auto below_limit = [](std::optional<int64_t> bits) { return bits && *bits / 8 < kMaxOperandBytes; };
  if (!below_limit(checked::mul<int64_t>(sh.stored_rows(layout, Operand::a), lda, bits_a)) ||
      !below_limit(checked::mul<int64_t>(sh.stored_rows(layout, Operand::b), ldb, bits_b)) ||
      !below_limit(checked::mul<int64_t>(sh.m, sh.c_ld(), c_elem * 8)))
    fail("each of A, B and C must stay below 1 GiB (rows x leading dimension x element size)");
}

std::string LoweredGemm::assembly() const {
  return kernel_prologue_directives(spec) + code.text() + kernel_epilogue_directives(spec);
}

LoweredGemm lower_gemm(const Schedule& s, const GemmShape& shape, const std::string& kernel_name) {
  if (!shape.out) {  // the schedule's types.c
    GemmShape resolved = shape;
    resolved.out = output_type(s, shape.out);
    return lower_gemm(s, resolved, kernel_name);
  }
  check_supported(s);
  validate_shape(shape, s.layout, element_bits(s.type_a), element_bits(s.type_b));
  if (s.scaled && shape.k % 32 != 0)
    throw Error(fmt::format("shape {}: K must be a multiple of 32 for the MX-scaled schedule {} (one E8M0 scale per "
                            "32 elements of K); pad K with zero columns and their scales", shape.to_string(), s.name));
  GemmContext ctx(s, shape);
  emit_entry(ctx);
  for (int group = 0; group < s.pingpong_groups; ++group) {
    const std::string prefix = fmt::format("g{}_", group);
    if (s.pingpong_groups == 2 && group == 0) {
      ctx.code.s_cmp_ge_u32(ctx.regs.wave, isa::imm(s.waves / 2));
      ctx.code.s_cbranch_scc1("g1_start");
    }
    if (group == 1) ctx.code.label("g1_start");
    emit_main_loop(ctx, group, prefix);
    // The store does not depend on the group: later groups branch to the first's.
    if (group > 0) {
      ctx.code.s_branch("store_c");
      continue;
    }
    ctx.code.label("store_c");
    emit_store_c(ctx);
    ctx.code.s_endpgm();
  }

  LoweredGemm out;
  out.code = isa::insert_hazard_nops(std::move(ctx.code));
  if (out.code.instruction_count() > kMaxInstructions)
    throw Error(fmt::format("schedule {} for shape {}: {} instructions, more than the {} a kernel may have (branches "
                            "take 16-bit dword offsets; at 8 bytes an instruction every branch stays in range)",
                            s.name, shape.to_string(), out.code.instruction_count(), kMaxInstructions));
  out.loop_instructions = ctx.loop_instructions;
  out.loop_iterations = ctx.loop_iterations;
  out.spec.name = kernel_name;
  out.spec.vgprs = ctx.regs.vgprs;
  out.spec.agprs = ctx.regs.agprs;
  out.spec.sgprs = ctx.regs.sgprs;
  out.spec.lds_bytes = uint32_t(lds_bytes(s));
  out.spec.workgroup_size = uint32_t(s.waves * 64);
  out.spec.workgroup_id_y = true;
  out.spec.workgroup_id_z = shape.batch > 1;
  out.spec.args = {{"a"}, {"b"}, {"c"}};
  if (s.scaled) out.spec.args.insert(out.spec.args.end(), {{"scale_a"}, {"scale_b"}});
  if (const auto& e = s.epilogue) {  // the order GemmContext::kernarg_* computes
    using Kind = KernelArgSpec::Kind;
    if (e->c) out.spec.args.push_back({"c_in"});
    if (e->bias != BiasDim::none) out.spec.args.push_back({"bias"});
    out.spec.args.push_back({"alpha", Kind::by_value, 4});
    if (e->c) out.spec.args.push_back({"beta", Kind::by_value, 4});
  }
  return out;
}

}  // namespace cdna4::codegen
