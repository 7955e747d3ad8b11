// kwb:variant f32
// kwb:launch gemm_f32 grid=(ceil_div(n, 128), ceil_div(m, 128)) block=(256) args=(a, b, c, m, n, k)
// c (m x n) = a (m x k) * b (k x n), row-major f32, f32 accumulation (no TF32: the spec's
// tolerance is that of f32). 256 threads compute a 128x128 tile of c, each an 8x8 block (rows
// ty*4+i and 64+ty*4+i, columns tx*4+j and 64+tx*4+j, so shared-memory reads are broadcasts or
// conflict-free float4). k advances 8 at a time through double-buffered shared memory; the next
// tile is loaded into registers while the current one is multiplied. Edges are zero-filled.
#define BM 128
#define BN 128
#define BK 8

extern "C" __global__ void __launch_bounds__(256) gemm_f32(const float* __restrict__ A, const float* __restrict__ B,
                                                           float* __restrict__ C, long long M, long long N, long long K) {
  __shared__ __align__(16) float As[2][BK][BM];
  __shared__ __align__(16) float Bs[2][BK][BN];
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  const long long m0 = (long long)blockIdx.y * BM, n0 = (long long)blockIdx.x * BN;
  // This thread's share of each tile load: 4 consecutive floats of A (one row) and of B (one row).
  const int a_row = t / 2, a_k = (t % 2) * 4;
  const int b_row = t / 32, b_col = (t % 32) * 4;
  const bool a_vec = (K & 3) == 0 && (reinterpret_cast<unsigned long long>(A) & 15) == 0;
  const bool b_vec = (N & 3) == 0 && (reinterpret_cast<unsigned long long>(B) & 15) == 0;

  float ra[4], rb[4];
  auto load = [&](long long k0) {
    const long long ar = m0 + a_row, ak = k0 + a_k;
    if (a_vec && ar < M && ak + 3 < K) {
      const float4 v = __ldg(reinterpret_cast<const float4*>(A + ar * K + ak));
      ra[0] = v.x, ra[1] = v.y, ra[2] = v.z, ra[3] = v.w;
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i) ra[i] = ar < M && ak + i < K ? __ldg(A + ar * K + ak + i) : 0.f;
    }
    const long long br = k0 + b_row, bc = n0 + b_col;
    if (b_vec && br < K && bc + 3 < N) {
      const float4 v = __ldg(reinterpret_cast<const float4*>(B + br * N + bc));
      rb[0] = v.x, rb[1] = v.y, rb[2] = v.z, rb[3] = v.w;
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i) rb[i] = br < K && bc + i < N ? __ldg(B + br * N + bc + i) : 0.f;
    }
  };
  auto store = [&](int buf) {
#pragma unroll
    for (int i = 0; i < 4; ++i) As[buf][a_k + i][a_row] = ra[i];
    *reinterpret_cast<float4*>(&Bs[buf][b_row][b_col]) = make_float4(rb[0], rb[1], rb[2], rb[3]);
  };

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;

  load(0);
  store(0);
  __syncthreads();
  int buf = 0;
  for (long long k0 = 0; k0 < K; k0 += BK) {
    const bool more = k0 + BK < K;
    if (more) load(k0 + BK);
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      const float4 a0 = *reinterpret_cast<const float4*>(&As[buf][kk][ty * 4]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[buf][kk][64 + ty * 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[buf][kk][tx * 4]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[buf][kk][64 + tx * 4]);
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (more) {
      store(buf ^ 1);
      __syncthreads();
      buf ^= 1;
    }
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const long long r = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
    if (r >= M) continue;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const long long col = n0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + (j - 4));
      if (col < N) C[r * N + col] = acc[i][j];
    }
  }
}
