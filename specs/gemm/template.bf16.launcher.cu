// gemm bf16, cuda-launcher: a simple correct launcher (a template to start from: GET /v1/specs/gemm).
// The host entry launches one kernel on the given stream and returns; the workbench synchronises
// and times that stream. The kernel is the cuda template's: A and B are bf16, C is f32; one thread
// per element of C in 16 x 16 blocks, each product widened to f32 (exact) and accumulated over k
// in f32, in order. Tensor cores (mma) are the way to a fast kernel (cuBLAS is the spec's baseline).
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {
__global__ void gemm_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int64_t m, int64_t n, int64_t k) {
  const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t i = int64_t(blockIdx.y) * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  float acc = 0.0f;
  for (int64_t p = 0; p < k; ++p) acc += __bfloat162float(a[i * k + p]) * __bfloat162float(b[p * n + j]);
  c[i * n + j] = acc;
}
}  // namespace

extern "C" void kwb_gemm_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int64_t m, int64_t n,
                              int64_t k, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;  // no element of C
  const dim3 block(16, 16);
  const dim3 grid(unsigned((n + 15) / 16), unsigned((m + 15) / 16));  // grid.y <= 65535: m up to ~1M rows
  gemm_bf16<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
}
