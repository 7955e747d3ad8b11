// fused_add_rmsnorm bf16, cuda-launcher: a simple correct launcher (a template to start from:
// GET /v1/specs/fused_add_rmsnorm). The host entry launches one kernel on the given stream and
// returns; the workbench synchronises and times that stream. The kernel is the cuda template's:
// one block of 256 threads per token, residual_out = bf16(x + residual), the sum of
// squares in double added in shared memory in a fixed order, y = bf16(residual_out / rms * weight).
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {
constexpr int k_threads = 256;  // the reduction tree assumes this block size

__global__ void fused_add_rmsnorm_rows(const __nv_bfloat16* x, const __nv_bfloat16* residual, const __nv_bfloat16* weight,
                                       __nv_bfloat16* y, __nv_bfloat16* residual_out, int64_t hidden,
                                       double eps) {
  __shared__ double part[k_threads];
  const int64_t row = int64_t(blockIdx.x) * hidden;
  double ss = 0;
  for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x) {
    const __nv_bfloat16 r = __float2bfloat16_rn(__bfloat162float(x[row + c]) + __bfloat162float(residual[row + c]));
    residual_out[row + c] = r;
    const double v = double(__bfloat162float(r));
    ss += v * v;
  }
  part[threadIdx.x] = ss;
  __syncthreads();
  for (int half = k_threads / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  const double rms = sqrt(part[0] / double(hidden) + eps);
  for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x)
    y[row + c] = __float2bfloat16_rn(float(double(__bfloat162float(residual_out[row + c])) / rms *
                                           double(__bfloat162float(weight[c]))));
}
}  // namespace

extern "C" void kwb_fused_add_rmsnorm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* residual, const __nv_bfloat16* weight,
                                           __nv_bfloat16* y, __nv_bfloat16* residual_out, int64_t tokens, int64_t hidden,
                                           double eps,
                                           cudaStream_t stream) {
  if (tokens <= 0 || hidden <= 0) return;  // no element to write
  fused_add_rmsnorm_rows<<<unsigned(tokens), k_threads, 0, stream>>>(x, residual, weight, y, residual_out, hidden, eps);
}
