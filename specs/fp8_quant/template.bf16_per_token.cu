// kwb:launch kwb_fp8_quant_bf16_per_token grid=(tokens) block=(256) args=(x, q, scale_token, tokens, hidden)
// fp8_quant bf16_per_token, cuda: a simple correct kernel (a template to start from:
// GET /v1/specs/fp8_quant). One block of 256 threads per row: the row's largest |x| by a
// shared-memory reduction, a = max(amax, 1e-4), then q = e4m3(x * (448 / a)) (f32, rounded to
// nearest even, saturating) and the scale a / 448.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

extern "C" __global__ void kwb_fp8_quant_bf16_per_token(const __nv_bfloat16* x, __nv_fp8_e4m3* q, float* scale_token,
                                                        long long tokens, long long hidden) {
  __shared__ float part[256];
  const __nv_bfloat16* xr = x + (long long)blockIdx.x * hidden;
  __nv_fp8_e4m3* qr = q + (long long)blockIdx.x * hidden;
  float amax = 0.0f;
  for (long long c = threadIdx.x; c < hidden; c += blockDim.x) amax = fmaxf(amax, fabsf(__bfloat162float(xr[c])));
  part[threadIdx.x] = amax;
  __syncthreads();
  for (int half = 128; half > 0; half >>= 1) {
    if (threadIdx.x < half) part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + half]);
    __syncthreads();
  }
  const float a = fmaxf(part[0], 1e-4f), inv = 448.0f / a;
  for (long long c = threadIdx.x; c < hidden; c += blockDim.x)
    qr[c].__x = __nv_cvt_float_to_fp8(__bfloat162float(xr[c]) * inv, __NV_SATFINITE, __NV_E4M3);
  if (threadIdx.x == 0) scale_token[blockIdx.x] = a / 448.0f;
}
