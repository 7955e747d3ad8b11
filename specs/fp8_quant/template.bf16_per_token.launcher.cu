// fp8_quant bf16_per_token, cuda-launcher: a simple correct launcher (a template to start from:
// GET /v1/specs/fp8_quant). The host entry launches one kernel on the given stream and returns;
// the workbench synchronises and times that stream. The kernel is the cuda template's: one block
// of 256 threads per row, the row's largest |x| by a shared-memory reduction, a = max(amax, 1e-4),
// then q = e4m3(x * (448 / a)) and the scale a / 448.
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

namespace {
constexpr int k_threads = 256;  // the reduction tree assumes this block size

__global__ void quantise_rows(const __nv_bfloat16* x, __nv_fp8_e4m3* q, float* scale_token, int64_t hidden) {
  __shared__ float part[k_threads];
  const __nv_bfloat16* xr = x + int64_t(blockIdx.x) * hidden;
  __nv_fp8_e4m3* qr = q + int64_t(blockIdx.x) * hidden;
  float amax = 0.0f;
  for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x) amax = fmaxf(amax, fabsf(__bfloat162float(xr[c])));
  part[threadIdx.x] = amax;
  __syncthreads();
  for (int half = k_threads / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + half]);
    __syncthreads();
  }
  const float a = fmaxf(part[0], 1e-4f), inv = 448.0f / a;
  for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x)
    qr[c].__x = __nv_cvt_float_to_fp8(__bfloat162float(xr[c]) * inv, __NV_SATFINITE, __NV_E4M3);
  if (threadIdx.x == 0) scale_token[blockIdx.x] = a / 448.0f;
}
}  // namespace

extern "C" void kwb_fp8_quant_bf16_per_token(const __nv_bfloat16* x, __nv_fp8_e4m3* q, float* scale_token,
                                             int64_t tokens, int64_t hidden, cudaStream_t stream) {
  if (tokens <= 0 || hidden <= 0) return;  // no element of q
  quantise_rows<<<unsigned(tokens), k_threads, 0, stream>>>(x, q, scale_token, hidden);  // one block per row
}
