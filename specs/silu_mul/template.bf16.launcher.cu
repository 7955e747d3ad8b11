// silu_mul bf16, cuda-launcher: a simple correct launcher (a template to start from:
// GET /v1/specs/silu_mul). The host entry launches one kernel on the given stream and returns; the
// workbench synchronises and times that stream. The kernel is the cuda template's: a grid-stride
// loop over the outputs, out[t, i] = silu(x[t, i]) * x[t, d + i] in f32, rounded once to bf16.
#include <algorithm>
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {
__global__ void silu_mul_elements(const __nv_bfloat16* x, __nv_bfloat16* out, int64_t tokens, int64_t d) {
  const int64_t n = tokens * d;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t t = e / d, i = e % d;
    const float g = __bfloat162float(x[t * 2 * d + i]), u = __bfloat162float(x[t * 2 * d + d + i]);
    out[e] = __float2bfloat16_rn(g / (1.0f + expf(-g)) * u);
  }
}
}  // namespace

extern "C" void kwb_silu_mul_bf16(const __nv_bfloat16* x, __nv_bfloat16* out, int64_t tokens, int64_t d,
                                  cudaStream_t stream) {
  if (tokens <= 0 || d <= 0) return;  // no element to write
  const int64_t blocks = std::min<int64_t>(65535, (tokens * d + 255) / 256);
  silu_mul_elements<<<unsigned(blocks), 256, 0, stream>>>(x, out, tokens, d);
}
