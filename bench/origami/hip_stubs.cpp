// Link-time stand-ins for the two HIP runtime functions Origami's hardware.cpp
// references (hardware_t::get_hardware_for_device). This machine has no GPU and no
// libamdhip64; the driver never calls get_hardware_for_device, it builds the
// hipDeviceProp_t itself and calls hardware_t::get_hardware_for_properties.
#include <hip/hip_runtime.h>

extern "C" hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_t*, int) {
  return hipErrorNoDevice;
}

extern "C" const char* hipGetErrorString(hipError_t) {
  return "no HIP runtime in this build (hip_stubs.cpp)";
}
