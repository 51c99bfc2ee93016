// One-call GEMM: host-side padding of K to the kernel's granularity and the
// transpose of a K x N B into the kernel's N x K, then compile, upload, launch.
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

}  // namespace

size_t packed_bytes(DataType type, int64_t count) { return size_t((count * element_bits(type) + 7) / 8); }

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

  GemmShape shape;
  shape.m = m;
  shape.n = n;
  shape.k = kp;
  shape.out = out;
  shape.batch = batch;
  GemmRun run;
  // Compiling first validates the shape, which bounds every host buffer below.
  const GemmKernel kernel = compile(schedule, shape, compile_options);
  run.compile = kernel.stats;

  std::vector<uint8_t> a(packed_bytes(schedule.type_a, elements(m, kp, "padded A")), 0);
  std::vector<uint8_t> bt(packed_bytes(schedule.type_b, elements(n, kp, "padded B")), 0);
  for (int64_t z = 0; z < batch; ++z) {
    const size_t a_in = size_t(z * m * k), a_out = size_t(z * m * kp), b_in = size_t(z * k * n), b_out = size_t(z * n * kp);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t x = 0; x < k; ++x)
        put(a, a_out + size_t(i * kp + x), bits_a, get(a_mk, a_in + size_t(i * k + x), bits_a));
    for (int64_t x = 0; x < k; ++x)
      for (int64_t j = 0; j < n; ++j)
        put(bt, b_out + size_t(j * kp + x), bits_b, get(b_kn, b_in + size_t(x * n + j), bits_b));
  }

  const size_t c_bytes = size_t(elements(m, n, "C")) * size_t(element_bytes(out));
  Buffer da = device.alloc(a.size()), db = device.alloc(bt.size()), dc = device.alloc(c_bytes);
  da.upload(a);
  db.upload(bt);
  dc.fill_zero();
  std::vector<Arg> args = {da, db, dc};
  Buffer sa, sb, c_in, bias;
  if (schedule.scaled) {
    // K is whole scale blocks; padding it (6-bit types: to 64) adds blocks of
    // zero elements, whose scales (1.0) only ever scale zeros.
    const int64_t blocks = k / 32, padded_blocks = kp / 32;
    std::vector<uint8_t> pa(size_t(batch * m * padded_blocks), 127), pb(size_t(batch * padded_blocks * n), 127);
    for (int64_t z = 0; z < batch; ++z) {
      for (int64_t i = 0; i < m; ++i)
        std::memcpy(&pa[size_t((z * m + i) * padded_blocks)], &scale_a[size_t((z * m + i) * blocks)], size_t(blocks));
      std::memcpy(&pb[size_t(z * padded_blocks * n)], &scale_b[size_t(z * blocks * n)], size_t(blocks * n));
    }
    sa = device.alloc(pa.size());
    sb = device.alloc(pb.size());
    sa.upload(pa);
    sb.upload(pb);
    args.insert(args.end(), {sa, sb});
  }
  if (epi) {  // the kernel's argument order: [C input], [bias], alpha, [beta]
    if (epi->c) {
      c_in = device.alloc(epilogue.c.size());
      c_in.upload(epilogue.c);
      args.push_back(c_in);
    }
    if (epi->bias != BiasDim::none) {
      bias = device.alloc(epilogue.bias.size());
      bias.upload(epilogue.bias);
      args.push_back(bias);
    }
    args.push_back(epilogue.alpha);
    if (epi->c) args.push_back(epilogue.beta);
  }
  run.launch = device.launch(kernel.kernel, kernel.grid, kernel.block, args, launch);
  run.c.resize(c_bytes);
  dc.download(run.c.data(), c_bytes);
  return run;
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
