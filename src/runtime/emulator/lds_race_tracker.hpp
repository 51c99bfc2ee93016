#pragma once
// Shadow state of LDS per dword: the last write and each wave's last read, so an
// access that conflicts with another wave's access not separated from it by
// "complete (s_waitcnt) then s_barrier" is reported instead of passing by luck.
#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/emulator/program.hpp"

namespace cdna4::emu {

struct AsyncState;

struct LdsAccess {
  uint16_t wave = 0;
  AsyncClass cls = AsyncClass::Lds;  // Lds for ds_*, Vector for LDS-DMA loads
  uint32_t seq = 0;
  uint32_t inst = 0;
  uint32_t epoch = 0;                // barriers the wave has passed
  bool write = false;
};

// The first conflicting dwords of an access: contiguous, all with the same other access.
struct LdsConflict {
  uint32_t byte_address = 0;
  uint32_t bytes = 0;
  uint16_t other_wave = 0;
  uint32_t other_inst = 0;
  bool other_write = false;
  AsyncClass other_cls = AsyncClass::Lds;
  uint32_t other_seq = 0;
};

class LdsRaceTracker {
 public:
  void reset(uint32_t lds_bytes, uint32_t waves);
  // Checks dwords [first, first + count) and records the access. Returns the
  // first conflict found, if any, grown over the following dwords that conflict
  // with the same access. `states[w]` is wave w's async state.
  std::optional<LdsConflict> access(uint32_t first_dword, uint32_t count, const LdsAccess& a,
                                    const std::vector<const AsyncState*>& states);

 private:
  struct Writer {
    uint32_t generation = 0;
    uint32_t seq = 0;
    uint32_t inst = 0;
    uint16_t wave = 0;
    AsyncClass cls = AsyncClass::None;
  };
  struct Reader {
    uint32_t seq = 0;  // 0: no read recorded
    uint32_t inst = 0;
  };
  void touch(uint32_t dword);
  // Whether an access conflicts with (wave, cls, seq), remembered for the access
  // being checked: its dwords mostly meet the same few other accesses, and the
  // waves' async states do not change while one instruction runs.
  struct Verdict {
    uint16_t wave = 0;
    AsyncClass cls = AsyncClass::None;
    uint32_t seq = 0;  // 0: none remembered
    bool conflict = false;
  };
  bool conflicts(const LdsAccess& a, uint16_t wave, AsyncClass cls, uint32_t seq,
                 const std::vector<const AsyncState*>& states, Verdict& memo) {
    if (memo.seq == seq && memo.wave == wave && memo.cls == cls) return memo.conflict;
    return decide(a, wave, cls, seq, states, memo);
  }
  bool decide(const LdsAccess& a, uint16_t wave, AsyncClass cls, uint32_t seq,
              const std::vector<const AsyncState*>& states, Verdict& memo);
  void begin(const LdsAccess& a);

  LdsAccess checking_{};
  Verdict writer_memo_;
  std::vector<Verdict> reader_memo_;  // [wave]
  uint32_t generation_ = 0;
  uint32_t waves_ = 0;
  std::vector<Writer> writers_;
  std::vector<Reader> readers_;  // [dword][wave]
};

}  // namespace cdna4::emu
