#include "runtime/hsa/aql_packet.hpp"

namespace cdna4::hsa {

void fill_dispatch_packet(hsa_kernel_dispatch_packet_t& packet, const rt::DispatchGeometry& geometry,
                          const DispatchResources& resources) {
  packet.setup = uint16_t(geometry.dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  packet.workgroup_size_x = uint16_t(geometry.block[0]);
  packet.workgroup_size_y = uint16_t(geometry.block[1]);
  packet.workgroup_size_z = uint16_t(geometry.block[2]);
  packet.reserved0 = 0;
  packet.grid_size_x = geometry.grid_size[0];
  packet.grid_size_y = geometry.grid_size[1];
  packet.grid_size_z = geometry.grid_size[2];
  packet.private_segment_size = resources.private_segment_size;
  packet.group_segment_size = resources.group_segment_size;
  packet.kernel_object = resources.kernel_object;
  packet.kernarg_address = resources.kernarg;
  packet.reserved2 = 0;
  packet.completion_signal = resources.completion_signal;
}

uint16_t dispatch_packet_header() {
  return uint16_t((HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                  (1 << HSA_PACKET_HEADER_BARRIER) |
                  (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                  (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
}

void publish_packet(hsa_kernel_dispatch_packet_t& packet, uint16_t header) {
  uint32_t word = uint32_t(header) | (uint32_t(packet.setup) << 16);
  __atomic_store_n(reinterpret_cast<uint32_t*>(&packet), word, __ATOMIC_RELEASE);
}

}  // namespace cdna4::hsa
