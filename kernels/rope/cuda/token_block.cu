// kwb:launch rope_bf16 grid=(tokens) block=(BLOCK) smem=(8 * half_dim) args=(q, k, positions, q_out, k_out, tokens, heads, kv_heads, half_dim, theta)
// kwb:tune BLOCK=64,128,256
// rope bf16 (rotate-half convention): one block per token. Its cosines and sines (f32: powf for
// theta^(-i / half_dim), sincosf of position * inv_freq) are computed once into shared memory,
// then the block rotates every head of q and k: when half_dim is a multiple of 8 each thread moves
// 8 pairs with two 16-byte loads and two 16-byte stores, otherwise one pair.
#include <cuda_bf16.h>

__device__ __forceinline__ uint4 rotate8(uint4 a, uint4 b, const float* c, const float* s, bool upper) {
  uint4 out;
  const __nv_bfloat162* a2 = reinterpret_cast<const __nv_bfloat162*>(&a);
  const __nv_bfloat162* b2 = reinterpret_cast<const __nv_bfloat162*>(&b);
  __nv_bfloat162* o2 = reinterpret_cast<__nv_bfloat162*>(&out);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const float2 x = __bfloat1622float2(a2[k]), y = __bfloat1622float2(b2[k]);
    const float c0 = c[2 * k], c1 = c[2 * k + 1], s0 = s[2 * k], s1 = s[2 * k + 1];
    o2[k] = upper ? __floats2bfloat162_rn(y.x * c0 + x.x * s0, y.y * c1 + x.y * s1)
                  : __floats2bfloat162_rn(x.x * c0 - y.x * s0, x.y * c1 - y.y * s1);
  }
  return out;
}

extern "C" __global__ void __launch_bounds__(BLOCK) rope_bf16(const __nv_bfloat16* __restrict__ q,
                                                              const __nv_bfloat16* __restrict__ k,
                                                              const int* __restrict__ positions,
                                                              __nv_bfloat16* __restrict__ q_out,
                                                              __nv_bfloat16* __restrict__ k_out, long long tokens,
                                                              long long heads, long long kv_heads, long long half_dim,
                                                              double theta) {
  extern __shared__ float cs[];  // cos [half_dim], then sin [half_dim]
  const long long t = blockIdx.x;
  const float pos = (float)__ldg(positions + t);
  for (long long i = threadIdx.x; i < half_dim; i += BLOCK)
    sincosf(pos * powf((float)theta, -(float)i / (float)half_dim), &cs[half_dim + i], &cs[i]);
  __syncthreads();
  const float* c = cs;
  const float* s = cs + half_dim;
  const long long nh = heads + kv_heads;
  const bool vec = (half_dim & 7) == 0 &&
                   ((reinterpret_cast<unsigned long long>(q) | reinterpret_cast<unsigned long long>(k) |
                     reinterpret_cast<unsigned long long>(q_out) | reinterpret_cast<unsigned long long>(k_out)) & 15) == 0;
  if (vec) {
    const long long vpr = half_dim / 8;  // vectors per half of a head
    for (long long e = threadIdx.x; e < nh * vpr; e += BLOCK) {
      const long long h = e / vpr, j = (e % vpr) * 8;
      const bool is_q = h < heads;
      const long long row = is_q ? (t * heads + h) * 2 * half_dim : (t * kv_heads + (h - heads)) * 2 * half_dim;
      const __nv_bfloat16* x = (is_q ? q : k) + row;
      __nv_bfloat16* o = (is_q ? q_out : k_out) + row;
      const uint4 a = __ldg(reinterpret_cast<const uint4*>(x + j));
      const uint4 b = __ldg(reinterpret_cast<const uint4*>(x + half_dim + j));
      *reinterpret_cast<uint4*>(o + j) = rotate8(a, b, c + j, s + j, false);
      *reinterpret_cast<uint4*>(o + half_dim + j) = rotate8(a, b, c + j, s + j, true);
    }
  } else {
    for (long long e = threadIdx.x; e < nh * half_dim; e += BLOCK) {
      const long long h = e / half_dim, i = e % half_dim;
      const bool is_q = h < heads;
      const long long row = is_q ? (t * heads + h) * 2 * half_dim : (t * kv_heads + (h - heads)) * 2 * half_dim;
      const __nv_bfloat16* x = (is_q ? q : k) + row;
      __nv_bfloat16* o = (is_q ? q_out : k_out) + row;
      const float a = __bfloat162float(x[i]), b = __bfloat162float(x[i + half_dim]);
      o[i] = __float2bfloat16_rn(a * c[i] - b * s[i]);
      o[i + half_dim] = __float2bfloat16_rn(b * c[i] + a * s[i]);
    }
  }
}
