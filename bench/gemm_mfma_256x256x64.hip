// Tiled MFMA GEMM for gfx950, the HIP counterpart of schedules/baseline_256x256x64_w8.json:
// C[M x N] (fp32, row-major) = A[M x K] * B^T, A and B bf16 row-major with B given as N x K.
// One 512-thread workgroup (8 waves, 2 x 4) per 256 x 256 block of C, K in steps of 64,
// LDS double buffered: the next K tile is fetched into registers while the current one
// is multiplied, then written to the other LDS buffer. Each wave owns 128 x 64 of C as
// 8 x 4 tiles of v_mfma_f32_16x16x32_bf16. No HIP headers: compile with -nogpuinc.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

typedef unsigned short u16;
typedef unsigned int u32x4 __attribute__((ext_vector_type(4)));
typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));
typedef float f32x4 __attribute__((ext_vector_type(4)));

constexpr int BM = 256, BN = 256, BK = 64;
constexpr int THREADS = 512;
constexpr int WAVES_M = 2, WAVES_N = 4;
constexpr int WAVE_M = BM / WAVES_M, WAVE_N = BN / WAVES_N;  // 128 x 64
constexpr int TILES_M = WAVE_M / 16, TILES_N = WAVE_N / 16;  // 8 x 4 MFMA tiles
// Row pitch padded by 16 bytes so the ds_read_b128 of 16 consecutive rows spread over the banks.
constexpr int PITCH = BK + 8;
constexpr int CHUNKS = BM * BK / 8 / THREADS;  // 16-byte chunks per thread per operand tile: 4

static __device__ inline void sync_threads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// Eight bf16 of row `row`, columns k0..k0+7, zero outside rows x cols.
static __device__ inline u32x4 load8(const u16* p, int ld, int row, int rows, int k0, int cols,
                                     bool vec_ok) {
  if (row >= rows) return u32x4{0, 0, 0, 0};
  const u16* src = p + (long)row * ld + k0;
  if (vec_ok && k0 + 8 <= cols) return *(const u32x4*)src;
  u32x4 v = {0, 0, 0, 0};
  #pragma unroll
  for (int i = 0; i < 8; ++i)
    if (k0 + i < cols) v[i / 2] |= unsigned(src[i]) << (16 * (i % 2));
  return v;
}

extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(THREADS, THREADS))) void
gemm_mfma_256x256x64(const u16* a, const u16* b, float* c, int m, int n, int k) {
  __shared__ u32x4 lds_a[2][BM * PITCH / 8];
  __shared__ u32x4 lds_b[2][BN * PITCH / 8];

  const int tid = __builtin_amdgcn_workitem_id_x();
  const int lane = tid % 64, wave = tid / 64;
  const int wm = wave / WAVES_N, wn = wave % WAVES_N;
  const int m0 = __builtin_amdgcn_workgroup_id_y() * BM;
  const int n0 = __builtin_amdgcn_workgroup_id_x() * BN;
  // 16-byte vector loads need every row start 16-byte aligned.
  const bool vec_ok = k % 8 == 0 && ((unsigned long)a % 16) == 0 && ((unsigned long)b % 16) == 0;

  u32x4 reg_a[CHUNKS], reg_b[CHUNKS];
  auto fetch = [&](int k0) {
    #pragma unroll
    for (int i = 0; i < CHUNKS; ++i) {
      const int chunk = tid + i * THREADS, row = chunk / (BK / 8), col = chunk % (BK / 8) * 8;
      reg_a[i] = load8(a, k, m0 + row, m, k0 + col, k, vec_ok);
      reg_b[i] = load8(b, k, n0 + row, n, k0 + col, k, vec_ok);
    }
  };
  auto store = [&](int buf) {
    #pragma unroll
    for (int i = 0; i < CHUNKS; ++i) {
      const int chunk = tid + i * THREADS, row = chunk / (BK / 8), col8 = chunk % (BK / 8);
      lds_a[buf][row * (PITCH / 8) + col8] = reg_a[i];
      lds_b[buf][row * (PITCH / 8) + col8] = reg_b[i];
    }
  };

  f32x4 acc[TILES_M][TILES_N];
  #pragma unroll
  for (int i = 0; i < TILES_M; ++i)
    #pragma unroll
    for (int j = 0; j < TILES_N; ++j) acc[i][j] = f32x4{0, 0, 0, 0};

  // MFMA 16x16x32 operands: lane holds row (lane % 16), k = 8 * (lane / 16) .. +7.
  const int frag_row = lane % 16, frag_k8 = lane / 16;
  const int k_tiles = (k + BK - 1) / BK;
  fetch(0);
  store(0);
  sync_threads();
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int buf = kt & 1;
    if (kt + 1 < k_tiles) fetch((kt + 1) * BK);
    #pragma unroll
    for (int ks = 0; ks < BK / 32; ++ks) {
      bf16x8 fa[TILES_M], fb[TILES_N];
      #pragma unroll
      for (int i = 0; i < TILES_M; ++i)
        fa[i] = __builtin_bit_cast(
            bf16x8, lds_a[buf][(wm * WAVE_M + i * 16 + frag_row) * (PITCH / 8) + ks * 4 + frag_k8]);
      #pragma unroll
      for (int j = 0; j < TILES_N; ++j)
        fb[j] = __builtin_bit_cast(
            bf16x8, lds_b[buf][(wn * WAVE_N + j * 16 + frag_row) * (PITCH / 8) + ks * 4 + frag_k8]);
      #pragma unroll
      for (int i = 0; i < TILES_M; ++i)
        #pragma unroll
        for (int j = 0; j < TILES_N; ++j)
          acc[i][j] = __builtin_amdgcn_mfma_f32_16x16x32_bf16(fa[i], fb[j], acc[i][j], 0, 0, 0);
    }
    if (kt + 1 < k_tiles) {
      // The other buffer was last read in iteration kt - 1, before that iteration's barrier.
      store(buf ^ 1);
      sync_threads();
    }
  }

  // Result lane layout: column (lane % 16), rows 4 * (lane / 16) + r.
  #pragma unroll
  for (int i = 0; i < TILES_M; ++i)
    #pragma unroll
    for (int j = 0; j < TILES_N; ++j) {
      const int col = n0 + wn * WAVE_N + j * 16 + lane % 16;
      const int row = m0 + wm * WAVE_M + i * 16 + 4 * (lane / 16);
      if (col >= n) continue;
      #pragma unroll
      for (int r = 0; r < 4; ++r)
        if (row + r < m) c[(long)(row + r) * n + col] = acc[i][j][r];
    }
}
