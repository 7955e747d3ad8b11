// kwb:launch fused_add_rmsnorm_bf16 grid=(tokens) block=(BLOCK) args=(x, residual, weight, y, residual_out, tokens, hidden, eps)
// kwb:tune BLOCK=256,512,1024
// fused_add_rmsnorm bf16: one block per token. residual_out = bf16(x + residual) (f32 add, exact,
// rounded to nearest even), its sum of squares by warp-shuffle reduction, then
// y = bf16(residual_out * rsqrt(mean + eps) * weight). 16-byte loads and stores (8 bf16) when the
// row length keeps every row 16-byte aligned; the rounded residual of up to KEEP vectors per thread
// stays in registers (hidden <= 8 * KEEP * BLOCK), longer rows re-read the elements the same thread
// wrote (L2). Global memory is read and written once. Each residual element is read before
// residual_out is written at its index, so residual_out may alias residual.
#include <cuda_bf16.h>

#define KEEP 4

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ float block_sum(float v, float* red) {
  v = warp_sum(v);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  if (lane == 0) red[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float t = warp_sum(lane < warps ? red[lane] : 0.f);
    if (lane == 0) red[32] = t;
  }
  __syncthreads();
  return red[32];
}

// 8 bf16 in a uint4: x + r rounded to bf16, the squares of the results added to ss.
__device__ __forceinline__ uint4 add8(uint4 a, uint4 b, float& ss) {
  uint4 out;
  const __nv_bfloat162* pa = reinterpret_cast<const __nv_bfloat162*>(&a);
  const __nv_bfloat162* pb = reinterpret_cast<const __nv_bfloat162*>(&b);
  __nv_bfloat162* po = reinterpret_cast<__nv_bfloat162*>(&out);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const float2 fa = __bfloat1622float2(pa[k]), fb = __bfloat1622float2(pb[k]);
    po[k] = __floats2bfloat162_rn(fa.x + fb.x, fa.y + fb.y);
    const float2 s = __bfloat1622float2(po[k]);
    ss += s.x * s.x + s.y * s.y;
  }
  return out;
}

__device__ __forceinline__ uint4 scale8(uint4 r, uint4 w, float inv) {
  uint4 out;
  const __nv_bfloat162* pr = reinterpret_cast<const __nv_bfloat162*>(&r);
  const __nv_bfloat162* pw = reinterpret_cast<const __nv_bfloat162*>(&w);
  __nv_bfloat162* po = reinterpret_cast<__nv_bfloat162*>(&out);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const float2 fr = __bfloat1622float2(pr[k]), fw = __bfloat1622float2(pw[k]);
    po[k] = __floats2bfloat162_rn(fr.x * inv * fw.x, fr.y * inv * fw.y);
  }
  return out;
}

extern "C" __global__ void __launch_bounds__(BLOCK) fused_add_rmsnorm_bf16(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* residual,
                                                  const __nv_bfloat16* __restrict__ weight, __nv_bfloat16* __restrict__ y,
                                                  __nv_bfloat16* residual_out, long long tokens, long long hidden,
                                                  double eps) {
  __shared__ float red[33];
  const long long row = (long long)blockIdx.x * hidden;
  const int tid = threadIdx.x, nt = blockDim.x;
  const bool vec = (hidden & 7) == 0 &&
                   ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(residual) |
                     reinterpret_cast<unsigned long long>(weight) | reinterpret_cast<unsigned long long>(y) |
                     reinterpret_cast<unsigned long long>(residual_out)) & 15) == 0;
  float ss = 0.f;
  if (vec) {
    const long long nv = hidden / 8;
    const uint4* x8 = reinterpret_cast<const uint4*>(x + row);
    const uint4* r8 = reinterpret_cast<const uint4*>(residual + row);
    uint4* o8 = reinterpret_cast<uint4*>(residual_out + row);
    const uint4* w8 = reinterpret_cast<const uint4*>(weight);
    uint4* y8 = reinterpret_cast<uint4*>(y + row);
    if (nv <= (long long)KEEP * nt) {  // the row fits in registers
      uint4 keep[KEEP];
#pragma unroll
      for (int k = 0; k < KEEP; ++k) {
        const long long i = tid + (long long)k * nt;
        if (i < nv) {
          keep[k] = add8(__ldg(x8 + i), r8[i], ss);
          o8[i] = keep[k];
        }
      }
      const float inv = rsqrtf(block_sum(ss, red) / float(hidden) + float(eps));
#pragma unroll
      for (int k = 0; k < KEEP; ++k) {
        const long long i = tid + (long long)k * nt;
        if (i < nv) y8[i] = scale8(keep[k], __ldg(w8 + i), inv);
      }
    } else {
      for (long long i = tid; i < nv; i += nt) o8[i] = add8(__ldg(x8 + i), r8[i], ss);
      const float inv = rsqrtf(block_sum(ss, red) / float(hidden) + float(eps));
      for (long long i = tid; i < nv; i += nt) y8[i] = scale8(o8[i], __ldg(w8 + i), inv);
    }
  } else {
    for (long long c = tid; c < hidden; c += nt) {
      const __nv_bfloat16 s = __float2bfloat16_rn(__bfloat162float(x[row + c]) + __bfloat162float(residual[row + c]));
      residual_out[row + c] = s;
      const float v = __bfloat162float(s);
      ss += v * v;
    }
    const float inv = rsqrtf(block_sum(ss, red) / float(hidden) + float(eps));
    for (long long c = tid; c < hidden; c += nt)
      y[row + c] = __float2bfloat16_rn(__bfloat162float(residual_out[row + c]) * inv * __bfloat162float(weight[c]));
  }
}
