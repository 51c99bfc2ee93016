// Tiled fp32 GEMM compiled as foreign code: C[M x N] = A[M x K] * B[K x N],
// row-major. Each 16x16 workgroup stages 16x16 tiles of A and B through
// dynamic shared memory (2 * 16 * 16 floats requested at launch).
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))

static __attribute__((device)) inline void sync_threads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

extern "C" __global__ void tiled_gemm(const float* a, const float* b, float* c, int m, int n, int k) {
  extern __shared__ float tiles[];
  float* as = tiles;
  float* bs = tiles + 256;
  int tx = __builtin_amdgcn_workitem_id_x(), ty = __builtin_amdgcn_workitem_id_y();
  int col = __builtin_amdgcn_workgroup_id_x() * 16 + tx;
  int row = __builtin_amdgcn_workgroup_id_y() * 16 + ty;
  float sum = 0.0f;
  for (int k0 = 0; k0 < k; k0 += 16) {
    as[ty * 16 + tx] = row < m && k0 + tx < k ? a[row * k + k0 + tx] : 0.0f;
    bs[ty * 16 + tx] = col < n && k0 + ty < k ? b[(k0 + ty) * n + col] : 0.0f;
    sync_threads();
    for (int i = 0; i < 16; ++i) sum += as[ty * 16 + i] * bs[i * 16 + tx];
    sync_threads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}
