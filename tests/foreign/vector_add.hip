// Vector add compiled as foreign code: c[i] = a[i] + b[i] for i < n.
// Built with clang-22 -x hip --offload-arch=gfx950 -nogpulib, no HIP headers.
#define __global__ __attribute__((global))

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
          __builtin_amdgcn_workitem_id_x();
  if (i < n) c[i] = a[i] + b[i];
}
