// kwb:variant bf16
// kwb:launch kwb_gemm_bf16 grid=(ceil_div(n, 16), ceil_div(m, 16)) block=(16, 16) args=(a, b, c, m, n, k)
// gemm bf16, cuda: a simple correct kernel (a template to start from: GET /v1/specs/gemm).
// A and B are bf16, C is f32: one thread per element of C, each product widened to f32 (exact)
// and accumulated over k in f32, in order. Tensor cores (mma) are the way to a fast kernel.
#include <cuda_bf16.h>

extern "C" __global__ void kwb_gemm_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, long long m,
                                         long long n, long long k) {
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  float acc = 0.0f;
  for (long long p = 0; p < k; ++p) acc += __bfloat162float(a[i * k + p]) * __bfloat162float(b[p * n + j]);
  c[i * n + j] = acc;
}
