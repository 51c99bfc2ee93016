#pragma once
// Outstanding memory operations of one wave and what a program may assume about
// them. An operation's results are applied when it completes (simulated time);
// it is "guaranteed" only once an s_waitcnt proves it complete. Touching its
// target before that is a race, whatever the timing happened to be.
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "runtime/emulator/program.hpp"
#include "common/limits.hpp"

namespace cdna4::emu {

// Leaves the elements resize() adds uninitialised: a handler writes every value
// that will land (the lanes of `lanes`, every address) before submitting.
template <class T> struct UninitialisedAllocator : std::allocator<T> {
  template <class U> struct rebind {
    using other = UninitialisedAllocator<U>;
  };
  UninitialisedAllocator() = default;
  template <class U> UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
  template <class U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
  template <class U, class... Args> void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

struct PendingOp {
  enum class Target : uint8_t { None, Vgpr, Sgpr, Lds };
  AsyncClass cls = AsyncClass::None;
  Target target = Target::None;
  uint32_t seq = 0;
  uint64_t complete_at = 0;
  uint16_t reg = 0;
  uint8_t dwords = 0;
  uint8_t lds_width = 4;             // Lds: bytes written per address (1, 2 for ds_write_b8/b16)
  uint64_t lanes = 0;                // VGPR targets: lanes written
  std::vector<uint32_t, UninitialisedAllocator<uint32_t>> values;  // Vgpr: [dword][64]; Sgpr: [dword]; Lds: one per address
  std::vector<uint32_t, UninitialisedAllocator<uint32_t>> lds_address;  // Lds: byte address of each value, or (lds_block) of the first
  bool lds_block = false;            // Lds: the values land one after another from lds_address[0]
};

// FIFO that reuses its slots (and their vectors' capacity); push() hands back a
// slot still holding an old operation, which begin_op() resets. The slots are a
// power of two, so a position wraps by a mask, not a division.
class OpQueue {
 public:
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  PendingOp& operator[](size_t i) { return slots_[(head_ + i) & (slots_.size() - 1)]; }
  const PendingOp& operator[](size_t i) const { return slots_[(head_ + i) & (slots_.size() - 1)]; }
  PendingOp& push() {
    if (count_ == slots_.size()) grow();
    return slots_[(head_ + count_++) & (slots_.size() - 1)];
  }
  void pop_front() {
    head_ = (head_ + 1) & (slots_.size() - 1);
    --count_;
  }
  // Removes element i (out-of-order completion), keeping the others' order.
  void erase(size_t i) {
    for (size_t k = i; k + 1 < count_; ++k) std::swap((*this)[k], (*this)[k + 1]);
    --count_;
  }
  void clear() { head_ = count_ = 0; }

 private:
  void grow() {
    std::vector<PendingOp> bigger(slots_.empty() ? 8 : slots_.size() * 2);
    for (size_t i = 0; i < count_; ++i) bigger[i] = std::move((*this)[i]);
    slots_ = std::move(bigger);
    head_ = 0;
  }
  std::vector<PendingOp> slots_;
  size_t head_ = 0, count_ = 0;
};

constexpr int kAsyncClasses = 4;  // indexed by AsyncClass
constexpr uint32_t kSeqBits = 30;
constexpr uint32_t kSeqMask = (1u << kSeqBits) - 1;
constexpr uint32_t kNever = 0xffffffffu;

inline uint32_t make_tag(AsyncClass cls, uint32_t seq) { return (uint32_t(cls) << kSeqBits) | (seq & kSeqMask); }
inline AsyncClass tag_class(uint32_t tag) { return AsyncClass(tag >> kSeqBits); }
inline uint32_t tag_seq(uint32_t tag) { return tag & kSeqMask; }

struct AsyncState {
  OpQueue queue[kAsyncClasses];
  uint32_t issued[kAsyncClasses] = {};
  uint32_t guaranteed_upto[kAsyncClasses] = {};
  // (guaranteed_upto, barrier epoch) each time a guarantee advanced: the epoch in
  // which an op became safe for other waves is the first checkpoint covering it.
  std::vector<std::pair<uint32_t, uint32_t>> checkpoints[kAsyncClasses];
  uint64_t earliest_completion = ~0ull;
  uint32_t vgpr_tag[gfx950::kRegistersPerLane] = {};  // pending load into the register (make_tag) or 0
  uint32_t sgpr_tag[128] = {};
  uint32_t vgpr_tag_inst[gfx950::kRegistersPerLane] = {};  // the load that set the tag, for reports
  uint32_t sgpr_tag_inst[128] = {};
  // Bit r: the register's tag is not 0, so a check skips the untagged registers 64 at a time.
  uint64_t vgpr_tagged[gfx950::kRegistersPerLane / 64] = {};
  uint64_t sgpr_tagged[128 / 64] = {};
  // Registers with a tag; a tag is dropped once its load is guaranteed, so mostly 0 between loads.
  uint32_t tagged = 0;
  // The tagged registers, coarsely and at least (rebuilt when an s_waitcnt drops tags): an
  // instruction whose registers do not meet it has none tagged, so it skips the check.
  RegisterFootprint tagged_footprint;

  bool guaranteed(AsyncClass cls, uint32_t seq) const { return seq <= guaranteed_upto[int(cls)]; }
  // Barrier epoch at which the op was proven complete, or kNever.
  uint32_t guarantee_epoch(AsyncClass cls, uint32_t seq) const;
  void reset();
};

}  // namespace cdna4::emu
