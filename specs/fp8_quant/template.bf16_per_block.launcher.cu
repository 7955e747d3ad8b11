// fp8_quant bf16_per_block, cuda-launcher: a simple correct launcher (a template to start from:
// GET /v1/specs/fp8_quant). The host entry launches one kernel on the given stream and returns;
// the workbench synchronises and times that stream. The kernel is the cuda template's: one block
// of 128 threads per 128-column block of a row, one element a thread, the block's largest |x| by a
// shared-memory reduction, a = max(amax, 1e-4), then q = e4m3(x * (448 / a)) and a / 448.
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

namespace {
constexpr int k_threads = 128;  // one thread per column of a 128-column block

__global__ void quantise_blocks(const __nv_bfloat16* x, __nv_fp8_e4m3* q, float* scale_block, int64_t hidden) {
  __shared__ float part[k_threads];
  const int64_t t = blockIdx.y, col = int64_t(blockIdx.x) * k_threads + threadIdx.x;
  const bool inside = col < hidden;
  const float v = inside ? __bfloat162float(x[t * hidden + col]) : 0.0f;
  part[threadIdx.x] = fabsf(v);
  __syncthreads();
  for (int half = k_threads / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + half]);
    __syncthreads();
  }
  const float a = fmaxf(part[0], 1e-4f), inv = 448.0f / a;
  if (inside) q[t * hidden + col].__x = __nv_cvt_float_to_fp8(v * inv, __NV_SATFINITE, __NV_E4M3);
  if (threadIdx.x == 0) scale_block[t * gridDim.x + blockIdx.x] = a / 448.0f;
}
}  // namespace

extern "C" void kwb_fp8_quant_bf16_per_block(const __nv_bfloat16* x, __nv_fp8_e4m3* q, float* scale_block,
                                             int64_t tokens, int64_t hidden, cudaStream_t stream) {
  if (tokens <= 0 || hidden <= 0) return;  // no element of q
  const dim3 grid(unsigned((hidden + k_threads - 1) / k_threads), unsigned(tokens));  // tokens <= 65535 on y
  quantise_blocks<<<grid, k_threads, 0, stream>>>(x, q, scale_block, hidden);
}
