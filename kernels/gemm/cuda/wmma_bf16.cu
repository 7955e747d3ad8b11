// kwb:variant bf16
// kwb:launch gemm_bf16 grid=(ceil_div(n, 128), ceil_div(m, 128)) block=(256) args=(a, b, c, m, n, k)
// c (m x n, f32) = a (m x k, bf16) * b (k x n, bf16), row-major, on the tensor cores through
// WMMA 16x16x16 bf16 fragments with f32 accumulators. A block of 8 warps computes a 128x128 tile
// of c (each warp 64x32: 4x2 fragments); k advances 32 at a time through shared memory whose
// rows are padded by 8 elements (16 bytes) against bank conflicts. Tiles are loaded with 16-byte
// vectors where rows are 16-byte aligned and in range, element by element (zero-filled) at the
// edges; results pass through a per-warp shared-memory stage so partial tiles are written safely.
// (A faster Hopper kernel would use wgmma with TMA and a multi-stage pipeline: see docs/cuda.md.)
#include <cuda_bf16.h>
#include <mma.h>

#define BM 128
#define BN 128
#define BK 32
#define LDA (BK + 8)
#define LDB (BN + 8)

using namespace nvcuda;

extern "C" __global__ void __launch_bounds__(256) gemm_bf16(const __nv_bfloat16* __restrict__ A,
                                                            const __nv_bfloat16* __restrict__ B, float* __restrict__ C,
                                                            long long M, long long N, long long K) {
  __shared__ __align__(32) __nv_bfloat16 As[BM][LDA];
  __shared__ __align__(32) __nv_bfloat16 Bs[BK][LDB];
  __shared__ __align__(32) float stage[8][16][16];
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int warp_m = warp / 4, warp_n = warp % 4;  // 2 x 4 warps of 64 x 32
  const long long m0 = (long long)blockIdx.y * BM, n0 = (long long)blockIdx.x * BN;
  const bool a_vec = (K & 7) == 0 && (reinterpret_cast<unsigned long long>(A) & 15) == 0;
  const bool b_vec = (N & 7) == 0 && (reinterpret_cast<unsigned long long>(B) & 15) == 0;
  const __nv_bfloat16 zero = __float2bfloat16(0.f);

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.f);

  for (long long k0 = 0; k0 < K; k0 += BK) {
    // A tile: 128 rows x 4 chunks of 8; B tile: 32 rows x 16 chunks of 8; 2 chunks each per thread.
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int c = t + 256 * j;
      const int ar = c / 4, ac = (c % 4) * 8;
      const long long gr = m0 + ar, gc = k0 + ac;
      if (a_vec && gr < M && gc + 8 <= K) {
        *reinterpret_cast<uint4*>(&As[ar][ac]) = __ldg(reinterpret_cast<const uint4*>(A + gr * K + gc));
      } else {
#pragma unroll
        for (int e = 0; e < 8; ++e) As[ar][ac + e] = gr < M && gc + e < K ? A[gr * K + gc + e] : zero;
      }
      const int br = c / 16, bc = (c % 16) * 8;
      const long long hr = k0 + br, hc = n0 + bc;
      if (b_vec && hr < K && hc + 8 <= N) {
        *reinterpret_cast<uint4*>(&Bs[br][bc]) = __ldg(reinterpret_cast<const uint4*>(B + hr * N + hc));
      } else {
#pragma unroll
        for (int e = 0; e < 8; ++e) Bs[br][bc + e] = hr < K && hc + e < N ? B[hr * N + hc + e] : zero;
      }
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[4];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb[2];
#pragma unroll
      for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(fa[i], &As[warp_m * 64 + i * 16][kk], LDA);
#pragma unroll
      for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], &Bs[kk][warp_n * 32 + j * 16], LDB);
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      wmma::store_matrix_sync(&stage[warp][0][0], acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      const long long r0 = m0 + warp_m * 64 + i * 16, c0 = n0 + warp_n * 32 + j * 16;
#pragma unroll
      for (int e = lane; e < 256; e += 32) {
        const long long r = r0 + e / 16, col = c0 + e % 16;
        if (r < M && col < N) C[r * N + col] = stage[warp][e / 16][e % 16];
      }
      __syncwarp();
    }
}
