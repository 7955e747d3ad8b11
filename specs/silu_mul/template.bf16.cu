// kwb:launch kwb_silu_mul_bf16 grid=(max(1, min(65535, ceil_div(tokens * d, 256)))) block=(256) args=(x, out, tokens, d)
// silu_mul bf16, cuda: a simple correct kernel (a template to start from: GET /v1/specs/silu_mul).
// A grid-stride loop over the outputs: out[t, i] = silu(gate) * up with gate = x[t, i] and
// up = x[t, d + i], in f32 (expf), rounded once to bf16.
#include <cuda_bf16.h>

extern "C" __global__ void kwb_silu_mul_bf16(const __nv_bfloat16* x, __nv_bfloat16* out, long long tokens, long long d) {
  const long long n = tokens * d;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += (long long)gridDim.x * blockDim.x) {
    const long long t = e / d, i = e % d;
    const float g = __bfloat162float(x[t * 2 * d + i]), u = __bfloat162float(x[t * 2 * d + d + i]);
    out[e] = __float2bfloat16_rn(g / (1.0f + expf(-g)) * u);
  }
}
