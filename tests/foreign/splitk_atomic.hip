// Split-K reduction with float atomics and a kernel whose generic pointer may
// point into LDS (flat addressing through src_shared_base), compiled as foreign
// code: clang-22 -x hip --offload-arch=gfx950 -nogpulib, no HIP headers.
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))

// Workgroup y sums its K slice of a[p] * b[p][i] and adds it to c[i] atomically.
extern "C" __global__ void splitk_atomic(const float* a, const float* b, float* c, int n, int k, int kslice) {
  int i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  int z = __builtin_amdgcn_workgroup_id_y();
  if (i >= n) return;
  float s = 0.0f;
  for (int p = z * kslice; p < (z + 1) * kslice && p < k; ++p) s += a[p] * b[p * n + i];
  __hip_atomic_fetch_add(c + i, s, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// Odd threads (when sel is 1) write through a generic pointer into LDS, the
// others into out; after a workgroup barrier every thread reads its neighbour's slot.
extern "C" __global__ void flat_mix(float* out, int sel) {
  __shared__ float tile[256];
  int t = __builtin_amdgcn_workitem_id_x();
  tile[t] = -1.0f;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  float* p = (t & sel) ? tile : out;
  p[t] = 2.0f * t;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  out[256 + t] = tile[t ^ 1];
}
