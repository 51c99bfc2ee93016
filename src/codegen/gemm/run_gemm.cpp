// One-call GEMM: A and B go to the kernel in the layout the caller declares
// (no host transpose), K padded with zeros to the kernel's granularity when it
// is not a multiple; then compile, upload, launch. Only 4- and 6-bit operands
// stored K-major are transposed on the host (the kernel reads those with K
// contiguous).
#include <cstdint>
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "cdna4/gemm.hpp"
#include "common/checked.hpp"

namespace cdna4 {
namespace {

// Element `i` of a densely packed array of `bits`-bit elements: bits [bits * i,
// bits * (i + 1)) of the little-endian bit string (4, 6, 8, 16).
uint32_t get(const std::vector<uint8_t>& v, size_t i, int bits) {
  if (bits % 8 == 0) {
    uint32_t x = 0;
    std::memcpy(&x, &v[i * size_t(bits / 8)], size_t(bits / 8));
    return x;
  }
  const size_t bit = i * size_t(bits);
  uint32_t word = v[bit / 8];
  if (bit % 8 + size_t(bits) > 8) word |= uint32_t(v[bit / 8 + 1]) << 8;
  return (word >> (bit % 8)) & ((1u << bits) - 1);
}

void put(std::vector<uint8_t>& v, size_t i, int bits, uint32_t x) {
  if (bits % 8 == 0) {
    std::memcpy(&v[i * size_t(bits / 8)], &x, size_t(bits / 8));
    return;
  }
  const size_t bit = i * size_t(bits);
  const uint32_t mask = ((1u << bits) - 1) << (bit % 8);
  const uint32_t shifted = x << (bit % 8);
  v[bit / 8] = uint8_t((v[bit / 8] & ~mask) | (shifted & mask));
  if (bit % 8 + size_t(bits) > 8)
    v[bit / 8 + 1] = uint8_t((v[bit / 8 + 1] & ~(mask >> 8)) | ((shifted & mask) >> 8));
}

Layout layout_of(bool a_k_major, bool b_k_major) {
  return a_k_major ? (b_k_major ? Layout::tn : Layout::tt) : (b_k_major ? Layout::nn : Layout::nt);
}

// How the kernel gets one operand (M or N = `mn` by K, `batch` of them):
// K-major or not, K padded to kp, rows `ld` apart (whole 16-byte rows).
struct Staging {
  bool k_major;
  int64_t ld, matrix;  // elements between rows and between matrices
};

// The caller's packed matrices (K-major or not, K columns) in the kernel's staging.
std::vector<uint8_t> restage(const std::vector<uint8_t>& in, int bits, int64_t batch, int64_t mn, int64_t k,
                             bool in_k_major, const Staging& to) {
  std::vector<uint8_t> out(size_t((batch * to.matrix * bits + 7) / 8), 0);
  for (int64_t z = 0; z < batch; ++z)
    for (int64_t i = 0; i < mn; ++i)
      for (int64_t x = 0; x < k; ++x) {
        const int64_t from = z * mn * k + (in_k_major ? x * mn + i : i * k + x);
        const int64_t at = z * to.matrix + (to.k_major ? x * to.ld + i : i * to.ld + x);
        put(out, size_t(at), bits, get(in, size_t(from), bits));
      }
  return out;
}

}  // namespace

size_t packed_bytes(DataType type, int64_t count) { return size_t((count * element_bits(type) + 7) / 8); }

namespace {

// Elements from an operand's first element to one past the last the kernel reads, the batch included.
int64_t operand_extent(const GemmShape& sh, Layout layout, Operand op, int bits) {
  return (sh.batch - 1) * sh.stride(layout, op) + sh.read_elements(layout, op, bits);
}

}  // namespace

GemmRun run_gemm_shaped(Device& device, const Schedule& schedule, const GemmShape& shape,
                        const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, const LaunchOptions& launch,
                        const CompileOptions& compile_options, const std::vector<uint8_t>& scale_a,
                        const std::vector<uint8_t>& scale_b, const EpilogueData& epilogue) {
  GemmRun run;
  // Compiling first validates the shape, which bounds every size below.
  const GemmKernel kernel = compile(schedule, shape, compile_options);
  run.compile = kernel.stats;
  const Layout layout = compile_options.layout.value_or(schedule.layout);
  const std::optional<Epilogue>& epi = compile_options.epilogue ? compile_options.epilogue : schedule.epilogue;
  const int64_t m = shape.m, n = shape.n, k = shape.k, batch = shape.batch;
  const auto need = [&](const std::vector<uint8_t>& v, DataType type, int64_t count, const std::string& what) {
    if (v.size() < packed_bytes(type, count))
      throw Error(fmt::format("run_gemm: {} holds {} bytes; the shape {} (layout {}) reads {} {} elements = {} bytes",
                              what, v.size(), shape.to_string(), to_string(layout), count, to_string(type),
                              packed_bytes(type, count)));
  };
  need(a, schedule.type_a, operand_extent(shape, layout, Operand::a, element_bits(schedule.type_a)), "A");
  need(b, schedule.type_b, operand_extent(shape, layout, Operand::b, element_bits(schedule.type_b)), "B");
  if (schedule.scaled) {
    need(scale_a, DataType::fp8, batch * m * (k / 32), "scale_a (M x K/32 per matrix)");
    need(scale_b, DataType::fp8, batch * (k / 32) * n, "scale_b (K/32 x N per matrix)");
  }
  const int64_t c_elements = (batch - 1) * shape.c_stride() + (m - 1) * shape.c_ld() + n;
  Buffer da = device.alloc(a.size()), db = device.alloc(b.size());
  Buffer dc = device.alloc(size_t(c_elements) * size_t(element_bytes(shape.out)));
  da.upload(a);
  db.upload(b);
  dc.fill_zero();
  std::vector<Arg> args = {da, db, dc};
  Buffer sa, sb, c_in, bias;
  if (schedule.scaled) {
    sa = device.alloc(scale_a.size());
    sb = device.alloc(scale_b.size());
    sa.upload(scale_a);
    sb.upload(scale_b);
    args.insert(args.end(), {sa, sb});
  }
  if (epi) {  // the kernel's argument order: [C input], [bias], alpha, [beta]
    if (epi->c) {
      need(epilogue.c, *epi->c, (batch - 1) * shape.c_stride() + (m - 1) * shape.c_in_ld() + n, "the epilogue's C");
      c_in = device.alloc(epilogue.c.size());
      c_in.upload(epilogue.c);
      args.push_back(c_in);
    }
    if (epi->bias != BiasDim::none) {
      need(epilogue.bias, epi->bias_type, epi->bias == BiasDim::m ? m : n, "the bias");
      bias = device.alloc(epilogue.bias.size());
      bias.upload(epilogue.bias);
      args.push_back(bias);
    }
    args.push_back(epilogue.alpha);
    if (epi->c) args.push_back(epilogue.beta);
  }
  run.launch = device.launch(kernel.kernel, kernel.grid, kernel.block, args, launch);
  run.c.resize(size_t(c_elements) * size_t(element_bytes(shape.out)));
  dc.download(run.c.data(), run.c.size());
  return run;
}

GemmRun run_gemm_batched(Device& device, const Schedule& schedule, int64_t batch, int64_t m, int64_t n, int64_t k,
                         const std::vector<uint8_t>& a_mk, const std::vector<uint8_t>& b_kn, OutType out,
                         const LaunchOptions& launch, const CompileOptions& compile_options,
                         const std::vector<uint8_t>& scale_a, const std::vector<uint8_t>& scale_b,
                         const EpilogueData& epilogue) {
  const std::string what_shape = batch == 1 ? fmt::format("{}x{}x{}", m, n, k) : fmt::format("{}x{}x{} batch {}", m, n, k, batch);
  if (m < 1 || n < 1 || k < 1 || batch < 1)
    throw Error(fmt::format("run_gemm: shape {}: M, N, K and the batch must be at least 1", what_shape));
  const auto elements = [&](int64_t rows, int64_t cols, const char* what) {
    const auto count = checked::mul(rows, cols, batch);
    if (!count || uint64_t(*count) > SIZE_MAX / 4)
      throw Error(fmt::format("run_gemm: shape {}: {} ({} x {}, {} of them) does not fit in memory sizes", what_shape,
                              what, rows, cols, batch));
    return *count;
  };
  const int bits_a = element_bits(schedule.type_a), bits_b = element_bits(schedule.type_b);
  const char* per = batch == 1 ? "" : " (all matrices of the batch)";
  const auto check_size = [&](const std::vector<uint8_t>& v, DataType type, int64_t count, const char* what) {
    if (v.size() != packed_bytes(type, count))
      throw Error(fmt::format("run_gemm: {} has {} elements ({} bytes of {}), {}{} = {}", what,
                              v.size() * 8 / size_t(element_bits(type)), v.size(), to_string(type),
                              what[0] == 'A' ? "M*K" : "K*N", batch == 1 ? "" : "*batch", count));
  };
  check_size(a_mk, schedule.type_a, elements(m, k, "A"), "A");
  check_size(b_kn, schedule.type_b, elements(k, n, "B"), "B");
  if (!schedule.scaled && (!scale_a.empty() || !scale_b.empty()))
    throw Error(fmt::format("run_gemm: schedule {} takes no scales (its MFMA is not v_mfma_scale_*)", schedule.name));
  if (schedule.scaled) {
    if (k % 32 != 0)
      throw Error(fmt::format("run_gemm: K = {} is not a multiple of 32, the block of one MX scale (schedule {})", k,
                              schedule.name));
    if (int64_t(scale_a.size()) != elements(m, k / 32, "scale_a") || int64_t(scale_b.size()) != elements(k / 32, n, "scale_b"))
      throw Error(fmt::format("run_gemm: scales hold {} and {} bytes; M x K/32 = {} and K/32 x N = {} expected{}",
                              scale_a.size(), scale_b.size(), m * (k / 32) * batch, (k / 32) * n * batch, per));
  }
  const std::optional<Epilogue>& epi = compile_options.epilogue ? compile_options.epilogue : schedule.epilogue;
  if (!epi && (!epilogue.c.empty() || !epilogue.bias.empty()))
    throw Error(fmt::format("run_gemm: schedule {} has no fused epilogue: C and bias data need one (\"epilogue\" or "
                            "CompileOptions::epilogue)", schedule.name));
  if (epi) {
    const size_t c_bytes = epi->c ? size_t(elements(m, n, "C input")) * size_t(element_bits(*epi->c) / 8) : 0;
    if (epilogue.c.size() != c_bytes)
      throw Error(fmt::format("run_gemm: the epilogue's C holds {} bytes; {} expected ({}){}", epilogue.c.size(), c_bytes,
                              epi->c ? fmt::format("M x N {}", to_string(*epi->c)) : "the epilogue reads no C", per));
    const int64_t bias_len = epi->bias == BiasDim::m ? m : epi->bias == BiasDim::n ? n : 0;
    const size_t bias_bytes = size_t(bias_len) * size_t(element_bits(epi->bias_type) / 8);
    if (epilogue.bias.size() != bias_bytes)
      throw Error(fmt::format("run_gemm: the bias holds {} bytes; {} expected ({})", epilogue.bias.size(), bias_bytes,
                              bias_len ? fmt::format("{} {} elements", bias_len, to_string(epi->bias_type))
                                       : "the epilogue has no bias"));
  }
  // Zero columns up to whole 16-byte rows add exact zeros to every dot product.
  const int granule = k_granule(schedule);
  const auto padded = checked::round_up<int64_t>(k, granule);
  if (!padded) throw Error(fmt::format("run_gemm: K = {} cannot be padded to a multiple of {}", k, granule));
  const int64_t kp = *padded;

  const Layout given = compile_options.layout.value_or(Layout::nn);
  const auto staging = [&](Operand op, int64_t mn, int bits) {
    Staging s;
    s.k_major = k_major(given, op) && (bits == 16 || bits == 8);
    s.ld = s.k_major ? checked::ceil_div<int64_t>(mn, element_granule(bits)) * element_granule(bits) : kp;
    s.matrix = (s.k_major ? kp : mn) * s.ld;
    elements(s.matrix, 1, op == Operand::a ? "padded A" : "padded B");
    return s;
  };
  const Staging stage_a = staging(Operand::a, m, bits_a), stage_b = staging(Operand::b, n, bits_b);
  CompileOptions options = compile_options;
  options.layout = layout_of(stage_a.k_major, stage_b.k_major);
  GemmShape shape;
  shape.m = m;
  shape.n = n;
  shape.k = kp;
  shape.out = out;
  shape.batch = batch;
  shape.lda = stage_a.ld;
  shape.ldb = stage_b.ld;
  // Compiled first (then cached): a shape the kernel refuses allocates nothing.
  compile(schedule, shape, options);

  // Passed as given unless K or a K-major row needs padding, or a sub-byte
  // K-major operand its transpose.
  const auto staged = [&](const std::vector<uint8_t>& data, Operand op, int64_t mn, int bits, const Staging& to) {
    const bool in_k_major = k_major(given, op);
    if (in_k_major == to.k_major && to.matrix == mn * k) return std::optional<std::vector<uint8_t>>();
    return std::optional(restage(data, bits, batch, mn, k, in_k_major, to));
  };
  const auto a = staged(a_mk, Operand::a, m, bits_a, stage_a), b = staged(b_kn, Operand::b, n, bits_b, stage_b);
  std::vector<uint8_t> pa, pb;
  if (schedule.scaled && kp != k) {
    // K is whole scale blocks; padding it (6-bit types: to 64) adds blocks of
    // zero elements, whose scales (1.0) only ever scale zeros.
    const int64_t blocks = k / 32, padded_blocks = kp / 32;
    pa.assign(size_t(batch * m * padded_blocks), 127);
    pb.assign(size_t(batch * padded_blocks * n), 127);
    for (int64_t z = 0; z < batch; ++z) {
      for (int64_t i = 0; i < m; ++i)
        std::memcpy(&pa[size_t((z * m + i) * padded_blocks)], &scale_a[size_t((z * m + i) * blocks)], size_t(blocks));
      std::memcpy(&pb[size_t(z * padded_blocks * n)], &scale_b[size_t(z * blocks * n)], size_t(blocks * n));
    }
  }
  const bool scales_padded = schedule.scaled && kp != k;
  return run_gemm_shaped(device, schedule, shape, a ? *a : a_mk, b ? *b : b_kn, launch, options,
                         scales_padded ? pa : scale_a, scales_padded ? pb : scale_b, epilogue);
}

GemmRun run_gemm_packed(Device& device, const Schedule& schedule, int64_t m, int64_t n, int64_t k,
                        const std::vector<uint8_t>& a_mk, const std::vector<uint8_t>& b_kn, OutType out,
                        const LaunchOptions& launch, const CompileOptions& compile_options,
                        const std::vector<uint8_t>& scale_a, const std::vector<uint8_t>& scale_b) {
  return run_gemm_batched(device, schedule, 1, m, n, k, a_mk, b_kn, out, launch, compile_options, scale_a, scale_b);
}

GemmRun run_gemm(Device& device, const Schedule& schedule, int64_t m, int64_t n, int64_t k,
                 const std::vector<uint16_t>& a_mk, const std::vector<uint16_t>& b_kn, OutType out,
                 const LaunchOptions& launch, const CompileOptions& compile_options) {
  if (element_bits(schedule.type_a) != 16 || element_bits(schedule.type_b) != 16)
    throw Error(fmt::format("run_gemm: schedule {} takes {} x {} operands; pass them packed to run_gemm_packed",
                            schedule.name, to_string(schedule.type_a), to_string(schedule.type_b)));
  const auto bytes = [](const std::vector<uint16_t>& v) {
    std::vector<uint8_t> out(v.size() * 2);
    std::memcpy(out.data(), v.data(), out.size());
    return out;
  };
  return run_gemm_packed(device, schedule, m, n, k, bytes(a_mk), bytes(b_kn), out, launch, compile_options);
}

}  // namespace cdna4
