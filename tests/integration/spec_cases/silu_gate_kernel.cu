// kwb:launch silu_gate_bf16 grid=(max(1, ceil_div(n, 256))) block=(256) args=(x, g, y, n)
// silu_gate in the cuda form: f32 math, one rounding to bf16 (__float2bfloat16_rn).
#include <cuda_bf16.h>
extern "C" __global__ void silu_gate_bf16(const __nv_bfloat16* x, const __nv_bfloat16* g, __nv_bfloat16* y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float xv = __bfloat162float(x[i]), gv = __bfloat162float(g[i]);
  y[i] = __float2bfloat16_rn(xv / (1.0f + __expf(-xv)) * gv);
}
