// kwb:launch kwb_fp8_quant_bf16_per_block grid=(ceil_div(hidden, 128), tokens) block=(128) args=(x, q, scale_block, tokens, hidden)
// fp8_quant bf16_per_block, cuda: a simple correct kernel (a template to start from:
// GET /v1/specs/fp8_quant). One block of 128 threads per 128-column block of a row (the last one
// may be shorter), one element a thread: the block's largest |x| by a shared-memory reduction,
// a = max(amax, 1e-4), then q = e4m3(x * (448 / a)) (f32, nearest even, saturating) and a / 448.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

extern "C" __global__ void kwb_fp8_quant_bf16_per_block(const __nv_bfloat16* x, __nv_fp8_e4m3* q, float* scale_block,
                                                        long long tokens, long long hidden) {
  __shared__ float part[128];
  const long long t = blockIdx.y, col = (long long)blockIdx.x * 128 + threadIdx.x;
  const bool inside = col < hidden;
  const float v = inside ? __bfloat162float(x[t * hidden + col]) : 0.0f;
  part[threadIdx.x] = fabsf(v);
  __syncthreads();
  for (int half = 64; half > 0; half >>= 1) {
    if (threadIdx.x < half) part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + half]);
    __syncthreads();
  }
  const float a = fmaxf(part[0], 1e-4f), inv = 448.0f / a;
  if (inside) q[t * hidden + col].__x = __nv_cvt_float_to_fp8(v * inv, __NV_SATFINITE, __NV_E4M3);
  if (threadIdx.x == 0) scale_block[t * gridDim.x + blockIdx.x] = a / 448.0f;
}
