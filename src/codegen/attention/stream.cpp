#include "codegen/attention/stream.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "codegen/attention_schedule/geometry.hpp"
#include "codegen/schedule/op_list.hpp"

#include "common/limits.hpp"

namespace cdna4::codegen::attention {

namespace {

enum class Counter { vm, lgkm };

// Instructions of `counter` an op issues.
int issued(const AttentionGeometry& g, const AttentionOp& op, Counter counter) {
  return counter == Counter::vm ? vm_instructions(op) : lgkm_instructions(g, op);
}

struct Instance {
  int op;
  int64_t iteration, block;
};

bool covers(const AttentionOp& producer, const AttentionOp& consumer) {
  return !producer.kpack || !consumer.kpack || *producer.kpack == *consumer.kpack;
}

// Instructions of `counter` strictly between stream positions a and b.
int between(const AttentionSchedule& s, const AttentionGeometry& g, const std::vector<Instance>& stream, size_t a,
            size_t b, Counter counter) {
  int n = 0;
  for (size_t x = a + 1; x < b; ++x) n += issued(g, s.ops[stream[x].op], counter);
  return n;
}

// A count past what s_waitcnt encodes waits for more than needed, never less.
void lower_to(std::optional<int>& wait, int count, Counter counter) {
  count = std::min(count, counter == Counter::vm ? gfx950::kMaxVmcnt : gfx950::kMaxLgkmcnt);
  wait = wait ? std::min(*wait, count) : count;
}

}  // namespace

void compute_waits(AttentionSchedule& s) {
  const AttentionGeometry g = AttentionGeometry::of(s);
  const std::vector<int> order = detail::emission_order(s.ops);
  const int64_t iterations = 3 * depth(s) + s.lds_buffers + 4;
  std::vector<Instance> stream;
  for (int64_t i = 0; i < iterations; ++i)
    for (int o : order) stream.push_back({o, i, i - s.ops[o].stage});
  const auto last_before = [&](size_t at, auto&& fits) -> std::optional<size_t> {
    for (size_t x = at; x-- > 0;)
      if (fits(stream[x])) return x;
    return std::nullopt;
  };
  for (size_t at = 0; at < stream.size(); ++at) {
    if (stream[at].iteration != iterations - 1) continue;
    AttentionOp& consumer = s.ops[stream[at].op];
    const int64_t block = stream[at].block;
    if (consumer.kind == AttentionOpKind::s2r) {
      const auto producer = last_before(at, [&](const Instance& x) {
        const AttentionOp& o = s.ops[x.op];
        return o.kind == AttentionOpKind::g2s && o.operand == consumer.operand && x.block == block;
      });
      if (!producer) continue;
      // The wait goes on the last barrier between the loads and the read: other
      // waves read what this wave loaded.
      const auto barrier = last_before(at, [&](const Instance& x) { return s.ops[x.op].kind == AttentionOpKind::barrier; });
      const size_t target = barrier && *barrier > *producer ? *barrier : at;
      lower_to(s.ops[stream[target].op].vmcnt, between(s, g, stream, *producer, target, Counter::vm), Counter::vm);
    } else if (consumer.kind == AttentionOpKind::dot_qk || consumer.kind == AttentionOpKind::dot_pv) {
      const KvOperand operand = consumer.kind == AttentionOpKind::dot_qk ? KvOperand::k : KvOperand::v;
      const auto producer = last_before(at, [&](const Instance& x) {
        const AttentionOp& o = s.ops[x.op];
        return o.kind == AttentionOpKind::s2r && o.operand == operand && x.block == block && covers(o, consumer);
      });
      if (producer) lower_to(consumer.lgkmcnt, between(s, g, stream, *producer, at, Counter::lgkm), Counter::lgkm);
    }
  }
}

}  // namespace cdna4::codegen::attention
