#include "runtime/emulator/private_memory.hpp"

#include <fmt/format.h>

namespace cdna4::emu {

uint8_t* private_bytes(Wave& w, const Inst& in, int lane, int64_t address, uint32_t bytes) {
  const Workgroup& wg = *w.wg;
  const uint64_t size = wg.private_lane_bytes;
  if (address < 0 || uint64_t(address) + bytes > size)
    wg.fail(w, in, fmt::format("lane {}: private access of {} bytes at 0x{:x} is outside the lane's {} bytes of "
                               "private segment", lane, bytes, address, size));
  return w.wg->private_memory.data() + (size_t(w.id) * kLanes + lane) * size + size_t(address);
}

}  // namespace cdna4::emu
