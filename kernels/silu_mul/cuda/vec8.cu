// kwb:launch silu_mul_bf16 grid=(ceil_div(d, 8 * BLOCK), min(tokens, 65535)) block=(BLOCK) args=(x, out, tokens, d)
// kwb:tune BLOCK=128,256
// silu_mul bf16: out[t, i] = silu(x[t, i]) * x[t, d + i]. Blocks of the grid's x dimension cover a
// token's row, its y dimension the tokens (striding by 65535 past that). When d is a multiple of 8
// every thread moves 8 elements with one 16-byte load of the gate, one of up and one 16-byte store;
// otherwise one element per thread. silu in f32 (__expf, __fdividef: exp(-g) = inf below g = -88
// gives -0), rounded once to bf16.
#include <cuda_bf16.h>

__device__ __forceinline__ float silu_times(float g, float u) { return __fdividef(g, 1.0f + __expf(-g)) * u; }

extern "C" __global__ void __launch_bounds__(BLOCK) silu_mul_bf16(const __nv_bfloat16* __restrict__ x,
                                                                  __nv_bfloat16* __restrict__ out, long long tokens,
                                                                  long long d) {
  const bool vec = (d & 7) == 0 &&
                   ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(out)) & 15) == 0;
  for (long long t = blockIdx.y; t < tokens; t += gridDim.y) {
    const __nv_bfloat16* gate = x + t * 2 * d;
    const __nv_bfloat16* up = gate + d;
    __nv_bfloat16* o = out + t * d;
    if (vec) {
      const long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;  // a vector of 8
      if (i >= d / 8) continue;
      const uint4 gv = __ldg(reinterpret_cast<const uint4*>(gate) + i);
      const uint4 uv = __ldg(reinterpret_cast<const uint4*>(up) + i);
      const __nv_bfloat162* g2 = reinterpret_cast<const __nv_bfloat162*>(&gv);
      const __nv_bfloat162* u2 = reinterpret_cast<const __nv_bfloat162*>(&uv);
      uint4 ov;
      __nv_bfloat162* o2 = reinterpret_cast<__nv_bfloat162*>(&ov);
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const float2 g = __bfloat1622float2(g2[k]), u = __bfloat1622float2(u2[k]);
        o2[k] = __floats2bfloat162_rn(silu_times(g.x, u.x), silu_times(g.y, u.y));
      }
      reinterpret_cast<uint4*>(o)[i] = ov;
    } else {
      for (long long i = (long long)blockIdx.x * BLOCK + threadIdx.x; i < d; i += (long long)gridDim.x * BLOCK)
        o[i] = __float2bfloat16_rn(silu_times(__bfloat162float(gate[i]), __bfloat162float(up[i])));
    }
  }
}
