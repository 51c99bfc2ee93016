#pragma once
// Filling an AQL kernel dispatch packet from the shared dispatch geometry.
#include <hsa/hsa.h>

#include <cstdint>

#include "runtime/kernarg.hpp"

namespace cdna4::hsa {

struct DispatchResources {
  uint64_t kernel_object = 0;
  void* kernarg = nullptr;
  uint32_t private_segment_size = 0;
  uint32_t group_segment_size = 0;  // fixed + dynamic LDS
  hsa_signal_t completion_signal{0};
};

// Fills every field but the header, which publish_packet writes last.
void fill_dispatch_packet(hsa_kernel_dispatch_packet_t& packet, const rt::DispatchGeometry& geometry,
                          const DispatchResources& resources);

// Header of a kernel dispatch with a barrier and system-scope acquire/release fences.
uint16_t dispatch_packet_header();

// Makes the packet visible to the packet processor: header and setup are
// stored together, atomically, with release ordering.
void publish_packet(hsa_kernel_dispatch_packet_t& packet, uint16_t header);

}  // namespace cdna4::hsa
