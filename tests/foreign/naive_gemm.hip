// Naive fp32 GEMM compiled as foreign code: C[M x N] = A[M x K] * B[K x N],
// row-major, one work-item per element of C, 2D grid (x over N, y over M).
#define __global__ __attribute__((global))

extern "C" __global__ void naive_gemm(const float* a, const float* b, float* c, int m, int n,
                                      int k) {
  int col = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
            __builtin_amdgcn_workitem_id_x();
  int row = __builtin_amdgcn_workgroup_id_y() * __builtin_amdgcn_workgroup_size_y() +
            __builtin_amdgcn_workitem_id_y();
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int i = 0; i < k; ++i) sum += a[row * k + i] * b[i * n + col];
  c[row * n + col] = sum;
}
