// kwb:variant bf16
// kwb:launch gemm_bf16 grid=(ceil_div(n, 128), ceil_div(m, 128)) block=(128) smem=75776 args=(a, b, c, m, n, k)
// c (m x n, f32) = a (m x k, bf16) * b (k x n, bf16), row-major, on the tensor cores: PTX
// mma.sync m16n8k16 bf16 with f32 accumulators, fragments loaded by ldmatrix (.trans for b). A
// block of 4 warps computes a 128x128 tile of c, each warp 64x64 (4 x 8 MMAs per 8 ldmatrix.x4
// per k step of 16). k advances 32 at a time through a 4-stage cp.async pipeline (3 tiles in
// flight while one is multiplied), in dynamic shared memory whose rows are padded by 8 elements
// (16 bytes) so every ldmatrix phase hits each bank once. Rows that are 16-byte aligned are
// copied by 16-byte cp.async (zero-filled past m, n and k); other shapes fall back to element
// loads. Results go from the accumulators to c in pairs, guarded at the edges.
// (wgmma with TMA would be faster still on Hopper: see docs/cuda.md.)
#include <cuda_bf16.h>

#define BM 128
#define BN 128
#define BK 32
#define STAGES 4
#define LDA (BK + 8)
#define LDB (BN + 8)
#define STAGE_ELEMS (BM * LDA + BK * LDB)  // 9472 bf16 = 18944 bytes; 4 stages = 75776 (smem=)

namespace {

__device__ __forceinline__ void cp_async16(void* dst, const void* src, bool full) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  const int bytes = full ? 16 : 0;  // 0: the 16 bytes are zero-filled, nothing is read
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* p) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void* p) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}
// d += a (16x16, row) * b (16x8, col): the fragment layouts of PTX's mma.m16n8k16.
__device__ __forceinline__ void mma_bf16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// c[r][col], c[r][col + 1] from an accumulator pair, in one 8-byte store where allowed.
__device__ __forceinline__ void store_pair(float* __restrict__ C, long long M, long long N, long long r, long long col,
                                           float x, float y, bool pairs) {
  if (r >= M) return;
  if (pairs && col + 1 < N) {
    *reinterpret_cast<float2*>(C + r * N + col) = make_float2(x, y);
    return;
  }
  if (col < N) C[r * N + col] = x;
  if (col + 1 < N) C[r * N + col + 1] = y;
}

// One k tile (A: 128 x 32, B: 32 x 128) into stage `st`: 512 16-byte chunks of each, 4 per thread.
__device__ __forceinline__ void load_tile(__nv_bfloat16* st, const __nv_bfloat16* __restrict__ A,
                                          const __nv_bfloat16* __restrict__ B, long long M, long long N, long long K,
                                          long long m0, long long n0, long long k0, bool a_vec, bool b_vec, int t) {
  __nv_bfloat16* As = st;
  __nv_bfloat16* Bs = st + BM * LDA;
  const __nv_bfloat16 zero = __float2bfloat16(0.f);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int c = t + 128 * j;
    const int ar = c / 4, ac = (c % 4) * 8;
    const long long gr = m0 + ar, gc = k0 + ac;
    if (a_vec) {  // K % 8 == 0: a chunk is wholly inside or wholly outside
      const bool in = gr < M && gc < K;
      cp_async16(&As[ar * LDA + ac], in ? A + gr * K + gc : A, in);
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e) As[ar * LDA + ac + e] = gr < M && gc + e < K ? A[gr * K + gc + e] : zero;
    }
    const int br = c / 16, bc = (c % 16) * 8;
    const long long hr = k0 + br, hc = n0 + bc;
    if (b_vec) {  // N % 8 == 0
      const bool in = hr < K && hc < N;
      cp_async16(&Bs[br * LDB + bc], in ? B + hr * N + hc : B, in);
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e) Bs[br * LDB + bc + e] = hr < K && hc + e < N ? B[hr * N + hc + e] : zero;
    }
  }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(128) gemm_bf16(const __nv_bfloat16* __restrict__ A,
                                                            const __nv_bfloat16* __restrict__ B, float* __restrict__ C,
                                                            long long M, long long N, long long K) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __nv_bfloat16* smem = reinterpret_cast<__nv_bfloat16*>(smem_raw);
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int warp_m = warp / 2, warp_n = warp % 2;  // 2 x 2 warps of 64 x 64
  const long long m0 = (long long)blockIdx.y * BM, n0 = (long long)blockIdx.x * BN;
  const bool a_vec = (K & 7) == 0 && (reinterpret_cast<unsigned long long>(A) & 15) == 0;
  const bool b_vec = (N & 7) == 0 && (reinterpret_cast<unsigned long long>(B) & 15) == 0;
  const long long tiles = (K + BK - 1) / BK;

  float acc[4][8][4];  // [m16 tile][n8 tile][fragment]
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles) load_tile(smem + s * STAGE_ELEMS, A, B, M, N, K, m0, n0, (long long)s * BK, a_vec, b_vec, t);
    cp_async_commit();
  }

  for (long long kt = 0; kt < tiles; ++kt) {
    cp_async_wait<STAGES - 2>();  // tile kt has landed (this thread's copies) ...
    __syncthreads();              // ... everyone's, and the stage refilled below is no longer read
    const long long next = kt + STAGES - 1;
    if (next < tiles)
      load_tile(smem + (next % STAGES) * STAGE_ELEMS, A, B, M, N, K, m0, n0, next * BK, a_vec, b_vec, t);
    cp_async_commit();  // an empty group near the end keeps the wait count uniform

    const __nv_bfloat16* As = smem + (kt % STAGES) * STAGE_ELEMS;
    const __nv_bfloat16* Bs = As + BM * LDA;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      unsigned fa[4][4], fb[4][4];  // fb[jj]: b fragments of n8 tiles 2 jj and 2 jj + 1
#pragma unroll
      for (int i = 0; i < 4; ++i)
        ldmatrix_x4(fa[i], As + (warp_m * 64 + i * 16 + lane % 16) * LDA + kk + (lane / 16) * 8);
#pragma unroll
      for (int jj = 0; jj < 4; ++jj)
        ldmatrix_x4_trans(fb[jj], Bs + (kk + lane % 16) * LDB + warp_n * 64 + jj * 16 + (lane / 16) * 8);
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) mma_bf16(acc[i][j], fa[i], fb[j / 2][(j % 2) * 2], fb[j / 2][(j % 2) * 2 + 1]);
    }
  }
  cp_async_wait<0>();  // only empty groups remain; nothing is left in flight at exit

  const bool pairs = (N & 1) == 0 && (reinterpret_cast<unsigned long long>(C) & 7) == 0;
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const long long r = m0 + warp_m * 64 + i * 16 + lane / 4, col = n0 + warp_n * 64 + j * 8 + (lane % 4) * 2;
      store_pair(C, M, N, r, col, acc[i][j][0], acc[i][j][1], pairs);
      store_pair(C, M, N, r + 8, col, acc[i][j][2], acc[i][j][3], pairs);
    }
}
