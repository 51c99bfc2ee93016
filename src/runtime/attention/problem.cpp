// AttentionShape, TensorStrides and AttentionProblem (cdna4/attention.hpp): defaults and validation.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "cdna4/attention.hpp"
#include "cdna4/error.hpp"
#include "common/checked.hpp"

namespace cdna4 {
namespace {

[[noreturn]] void refuse(const std::string& what) { throw Error("attention: " + what); }

std::string describe(const TensorStrides& s) {
  return fmt::format("batch {}, seq {}, head {}", s.batch, s.seq, s.head);
}

// Elements from a [B, S, H, D] tensor's first element to its last, inclusive; nullopt on overflow.
std::optional<int64_t> extent(const TensorStrides& st, int64_t batch, int64_t seqlen, int64_t heads, int64_t dim) {
  int64_t sum = dim;
  for (const auto& [count, stride] : {std::pair{batch, st.batch}, {seqlen, st.seq}, {heads, st.head}}) {
    const auto step = checked::mul(count - 1, stride);
    const auto next = step ? checked::add(sum, *step) : std::nullopt;
    if (!next) return std::nullopt;
    sum = *next;
  }
  return sum;
}

void check_strides(const char* name, const TensorStrides& s) {
  if (s.batch < 0 || s.seq < 0 || s.head < 0)
    refuse(fmt::format("{}'s strides must not be negative, got {}", name, describe(s)));
}

// An input tensor of `seqlen` x `heads` rows of D bf16 elements inside its buffer.
void check_input(const char* name, const HostBytes& bytes, const std::optional<TensorStrides>& given,
                 const AttentionShape& sh, int64_t seqlen, int64_t heads) {
  const TensorStrides st = given ? *given : TensorStrides::bshd(seqlen, heads, sh.dim);
  check_strides(name, st);
  const auto elements = extent(st, sh.batch, seqlen, heads, sh.dim);
  const auto needed = elements ? checked::mul<int64_t>(*elements, 2) : std::nullopt;
  if (!needed)
    refuse(fmt::format("{}'s strides ({}) overflow 64 bits for [{}, {}, {}, {}]", name, describe(st), sh.batch,
                       seqlen, heads, sh.dim));
  const auto held = int64_t(bytes.size());
  if (!given && held != *needed)
    refuse(fmt::format("{} holds {} bytes; packed [{}, {}, {}, {}] bf16 is {} bytes", name, held, sh.batch, seqlen,
                       heads, sh.dim, *needed));
  if (given && held < *needed)
    refuse(fmt::format("{} holds {} bytes; [{}, {}, {}, {}] bf16 at strides ({}) needs {}", name, held, sh.batch,
                       seqlen, heads, sh.dim, describe(st), *needed));
}

// O: within 64 bits, and no two of its elements at one place (each dimension's
// stride at least the span of the dimensions nested inside it, in stride order:
// from the first element of the nested block to one past its last, so a row of
// H heads D + 1 apart spans (H - 1) * (D + 1) + D elements, not H * (D + 1)).
void check_output(const AttentionProblem& p) {
  const AttentionShape& sh = p.shape;
  const TensorStrides st = p.strides_o();
  check_strides("O", st);
  const auto elements = extent(st, sh.batch, sh.seqlen_q, sh.heads, sh.dim);
  if (!elements || !checked::mul<int64_t>(*elements, 4))
    refuse(fmt::format("O's strides ({}) overflow 64 bits for [{}, {}, {}, {}]", describe(st), sh.batch, sh.seqlen_q,
                       sh.heads, sh.dim));
  std::array<std::pair<int64_t, int64_t>, 3> dims{{{st.batch, sh.batch}, {st.seq, sh.seqlen_q}, {st.head, sh.heads}}};
  std::sort(dims.begin(), dims.end());
  int64_t span = sh.dim;  // elements one step of the next dimension must clear
  for (const auto& [stride, count] : dims) {
    if (count == 1) continue;
    if (stride < span) refuse(fmt::format("O's strides ({}) make its elements overlap", describe(st)));
    span += *checked::mul(stride, count - 1);  // <= the extent, which fits
  }
}

}  // namespace

float AttentionShape::softmax_scale() const { return scale ? *scale : float(1.0 / std::sqrt(double(dim))); }

namespace {
// seqlen x heads x dim elements, refused in words when that does not fit 64 bits.
int64_t packed_elements(int64_t seqlen, int64_t heads, int64_t dim) {
  const auto n = checked::mul(seqlen, heads, dim);
  if (!n) refuse(fmt::format("packed strides of S {} x H {} x D {} elements overflow 64 bits", seqlen, heads, dim));
  return *n;
}
}  // namespace

TensorStrides TensorStrides::bshd(int64_t seqlen, int64_t heads, int64_t dim) {
  return {packed_elements(seqlen, heads, dim), heads * dim, dim};
}

TensorStrides TensorStrides::bhsd(int64_t seqlen, int64_t heads, int64_t dim) {
  return {packed_elements(seqlen, heads, dim), dim, seqlen * dim};
}

TensorStrides AttentionProblem::strides_q() const {
  return q_strides ? *q_strides : TensorStrides::bshd(shape.seqlen_q, shape.heads, shape.dim);
}
TensorStrides AttentionProblem::strides_k() const {
  return k_strides ? *k_strides : TensorStrides::bshd(shape.seqlen_k, shape.heads_kv, shape.dim);
}
TensorStrides AttentionProblem::strides_v() const {
  return v_strides ? *v_strides : TensorStrides::bshd(shape.seqlen_k, shape.heads_kv, shape.dim);
}
TensorStrides AttentionProblem::strides_o() const {
  return o_strides ? *o_strides : TensorStrides::bshd(shape.seqlen_q, shape.heads, shape.dim);
}

int64_t AttentionProblem::o_elements() const {
  const TensorStrides st = strides_o();
  return (shape.batch - 1) * st.batch + (shape.seqlen_q - 1) * st.seq + (shape.heads - 1) * st.head + shape.dim;
}

void validate(const AttentionProblem& p) {
  const AttentionShape& sh = p.shape;
  if (sh.batch < 1 || sh.seqlen_q < 1 || sh.seqlen_k < 1 || sh.heads < 1 || sh.heads_kv < 1)
    refuse(fmt::format("B, Nq, Nk, H and Hkv must be at least 1, got B {} Nq {} Nk {} H {} Hkv {}", sh.batch,
                       sh.seqlen_q, sh.seqlen_k, sh.heads, sh.heads_kv));
  if (sh.heads % sh.heads_kv != 0)
    refuse(fmt::format("H ({}) must be a multiple of Hkv ({})", sh.heads, sh.heads_kv));
  if (sh.dim != 64 && sh.dim != 128) refuse(fmt::format("D must be 64 or 128, got {}", sh.dim));
  if (!checked::mul(sh.batch, sh.seqlen_q, sh.heads, sh.dim) || !checked::mul(sh.batch, sh.seqlen_k, sh.heads_kv, sh.dim))
    refuse(fmt::format("B {} x Nq {} x H {} or B x Nk {} x Hkv {} elements of D {} overflow 64 bits", sh.batch,
                       sh.seqlen_q, sh.heads, sh.seqlen_k, sh.heads_kv, sh.dim));
  if (sh.scale && !(std::isfinite(*sh.scale) && *sh.scale > 0))
    refuse(fmt::format("the softmax scale must be finite and positive, got {}", *sh.scale));
  if (sh.out != OutType::bf16 && sh.out != OutType::f32)
    refuse(fmt::format("O's type must be bf16 or f32, got {}", to_string(sh.out)));
  check_input("Q", p.q, p.q_strides, sh, sh.seqlen_q, sh.heads);
  check_input("K", p.k, p.k_strides, sh, sh.seqlen_k, sh.heads_kv);
  check_input("V", p.v, p.v_strides, sh, sh.seqlen_k, sh.heads_kv);
  check_output(p);
}

}  // namespace cdna4
