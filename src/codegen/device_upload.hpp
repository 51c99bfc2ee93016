#pragma once
// Host bytes into a fresh device buffer: the inputs run_gemm and run_attention stage.
#include <cstdint>
#include <span>

#include "cdna4/runtime.hpp"

namespace cdna4::codegen {

inline Buffer upload(Device& device, std::span<const uint8_t> data) {
  Buffer buffer = device.alloc(data.size());
  buffer.upload(data.data(), data.size());
  return buffer;
}

}  // namespace cdna4::codegen
