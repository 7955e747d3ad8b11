// kwb:launch kwb_fused_add_rmsnorm_bf16 grid=(tokens) block=(256) args=(x, residual, weight, y, residual_out, tokens, hidden, eps)
// fused_add_rmsnorm bf16, cuda: a simple correct kernel (a template to start from:
// GET /v1/specs/fused_add_rmsnorm). One block per token: residual_out = bf16(x + residual), the
// sum of squares of the stored residual_out in double, added in shared memory in a fixed order,
// then y = bf16(residual_out / sqrt(mean + eps) * weight). Each thread reads back only the
// residual_out elements it wrote itself.
#include <cuda_bf16.h>

extern "C" __global__ void kwb_fused_add_rmsnorm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* residual,
                                                      const __nv_bfloat16* weight, __nv_bfloat16* y, __nv_bfloat16* residual_out,
                                                      long long tokens, long long hidden, double eps) {
  __shared__ double part[256];
  const long long row = (long long)blockIdx.x * hidden;
  double ss = 0;
  for (long long c = threadIdx.x; c < hidden; c += blockDim.x) {
    const __nv_bfloat16 r = __float2bfloat16_rn(__bfloat162float(x[row + c]) + __bfloat162float(residual[row + c]));
    residual_out[row + c] = r;
    const double v = (double)__bfloat162float(r);
    ss += v * v;
  }
  part[threadIdx.x] = ss;
  __syncthreads();
  for (int half = 128; half > 0; half >>= 1) {
    if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  const double rms = sqrt(part[0] / (double)hidden + eps);
  for (long long c = threadIdx.x; c < hidden; c += blockDim.x)
    y[row + c] = __float2bfloat16_rn((float)((double)__bfloat162float(residual_out[row + c]) / rms *
                                             (double)__bfloat162float(weight[c])));
}
