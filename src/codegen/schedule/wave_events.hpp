#pragma once
// The happens-before model the GEMM and attention verifiers share. Each wave runs
// its expanded stream. s_barrier number j is the same synchronisation point in
// every wave, so an event of wave u that happens before u's j-th barrier is
// ordered before every event of another wave after that wave's j-th barrier;
// nothing else orders two waves. A G2S (LDS-DMA, counted by vmcnt) is complete in
// its wave at the first vmcnt wait that leaves fewer in flight than it; an S2R's
// ds_reads likewise at the first covering lgkmcnt wait (both counters retire in
// issue order).
#include <fmt/format.h>

#include <climits>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cdna4::detail {

constexpr int kNever = INT_MAX;

struct Event {
  int stream_index = 0;  // position in the wave's stream (program order)
  int epoch = 0;         // s_barriers the wave passed before it
  int done_index = kNever, done_epoch = kNever;  // first wait that retires it
};

// Happens-before between an event of wave `from` (done at index/epoch) and an
// event of wave `to` at (index, epoch).
inline bool ordered(int from, int done_index, int done_epoch, int to, const Event& later) {
  if (from == to) return done_index <= later.stream_index;
  return done_epoch < later.epoch;
}

// Why a G2S of wave `writer` is not ordered before an S2R of wave `reader`
// that reads its part (a raw-race); `where(i)` names the writer's stream index i.
template <typename Where>
std::string raw_reason(int writer, int reader, const Event& write, Where&& where) {
  if (write.done_index == kNever) return fmt::format("wave {} never waits (vmcnt) for that load", writer);
  if (writer == reader)
    return fmt::format("this wave waits for that load (vmcnt) only before {}, after the read", where(write.done_index));
  return fmt::format("wave {} waits for it (vmcnt) only before {}, and no s_barrier follows that wait before this read "
                     "(a vmcnt wait missing or too weak before the publishing s_barrier, or the barrier missing)",
                     writer, where(write.done_index));
}

// Why an S2R of wave `reader` is not ordered before the G2S of wave `writer`
// that refills its slot (a war-race); `where(i)` names the reader's stream index i.
template <typename Where>
std::string war_reason(int reader, int writer, const Event& read, const Event& overwrite, Where&& where) {
  if (read.epoch >= overwrite.epoch && reader != writer) return "no s_barrier separates that read from this load";
  if (read.done_index == kNever) return "that read is never waited for with lgkmcnt";
  if (reader == writer)
    return fmt::format("that read is waited for (lgkmcnt) only before {}, after this load", where(read.done_index));
  return fmt::format("its ds_reads are waited for (lgkmcnt) only before {}, which is not before an s_barrier that "
                     "precedes this load", where(read.done_index));
}

// One wave's vmcnt and lgkmcnt queues over `events` (parallel to its stream).
class WaveCounters {
 public:
  explicit WaveCounters(std::vector<Event>& events) : events_(events) {}

  // The s_waitcnt before stream index t, in the wave's epoch.
  void wait(std::optional<int> vmcnt, std::optional<int> lgkmcnt, int t, int epoch) {
    if (vmcnt)
      while (static_cast<int>(vm_.size()) > *vmcnt) {
        retire(vm_.front(), t, epoch);
        vm_.pop_front();
      }
    if (lgkmcnt)
      while (static_cast<int>(lgkm_.size()) > *lgkmcnt) {
        if (lgkm_.front().second) retire(lgkm_.front().first, t, epoch);
        lgkm_.pop_front();
      }
  }
  void issue_vm(int t) { vm_.push_back(t); }
  void issue_lgkm(int t, int reads) {
    for (int j = 0; j < reads; ++j) lgkm_.emplace_back(t, j == reads - 1);
  }
  // ds_reads issued after the last one of the S2R at stream index t: the
  // lgkmcnt that would retire it.
  int lgkm_newer_than(int t) const {
    int newer = 0;
    for (auto q = lgkm_.rbegin(); q != lgkm_.rend() && q->first != t; ++q) ++newer;
    return newer;
  }

 private:
  void retire(int index, int t, int epoch) {
    Event& e = events_[index];
    if (e.done_index == kNever) {
      e.done_index = t;
      e.done_epoch = epoch;
    }
  }

  std::vector<Event>& events_;
  std::deque<int> vm_;                       // G2S in flight, issue order
  std::deque<std::pair<int, bool>> lgkm_;    // ds_reads in flight: (S2R index, is its last)
};

}  // namespace cdna4::detail
