// kwb:launch fp8_quant_per_block grid=(ceil_div(tokens * ceil_div(hidden, 128), 16)) block=(256) args=(x, q, scale_block, tokens, hidden)
// Sixteen lanes (half a warp) per 128-column block of a row, 16 groups per 256-thread block: each
// lane loads 16 bytes (8 bf16), the group's largest |x| comes from an integer max over the bf16
// bits and four shuffles, then q = e4m3(x * (448 / a)), a = max(amax, 1e-4), stored 8 bytes a
// lane, and the group's first lane writes the scale a / 448. One pass over global memory. Rows
// whose length is not a multiple of 8 (or unaligned buffers) take a scalar path, 8 elements a lane.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

__device__ __forceinline__ float bf16_at(const unsigned short* x, long long i) {
  return __uint_as_float(unsigned(__ldg(x + i)) << 16);
}

// The 8 bf16 of a 16-byte load as floats.
__device__ __forceinline__ void unpack8(uint4 v, float* f) {
  const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = __uint_as_float(w[i] << 16);
    f[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
  }
}

__device__ __forceinline__ float absmax8(uint4 v) {  // bf16 magnitudes order like their bits
  const unsigned m = __vmaxu2(__vmaxu2(v.x & 0x7fff7fffu, v.y & 0x7fff7fffu), __vmaxu2(v.z & 0x7fff7fffu, v.w & 0x7fff7fffu));
  return __uint_as_float(max(m & 0xffffu, m >> 16) << 16);
}

// q = e4m3(x * inv) for 8 values, stored as 8 bytes.
__device__ __forceinline__ void store8(unsigned char* q, uint4 v, float inv) {
  float f[8];
  unpack8(v, f);
  unsigned short p[4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
    p[i] = __nv_cvt_float2_to_fp8x2(make_float2(f[2 * i] * inv, f[2 * i + 1] * inv), __NV_SATFINITE, __NV_E4M3);
  *reinterpret_cast<uint2*>(q) = make_uint2(p[0] | (unsigned(p[1]) << 16), p[2] | (unsigned(p[3]) << 16));
}

__device__ __forceinline__ unsigned char e4m3(float v) {
  return (unsigned char)__nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
}

__device__ __forceinline__ bool aligned(const void* p, unsigned bytes) {
  return (reinterpret_cast<unsigned long long>(p) & (bytes - 1)) == 0;
}

extern "C" __global__ void fp8_quant_per_block(const __nv_bfloat16* __restrict__ x, __nv_fp8_e4m3* __restrict__ q,
                                               float* __restrict__ scale_block, long long tokens, long long hidden) {
  const long long blocks = (hidden + 127) >> 7;
  const long long group = (long long)blockIdx.x * (blockDim.x >> 4) + (threadIdx.x >> 4);
  const int lane = threadIdx.x & 15;
  const bool live = group < tokens * blocks;  // dead groups still take part in the shuffles
  const long long t = live ? group / blocks : 0, b = live ? group % blocks : 0;
  const long long c0 = b * 128, n = live ? min(128LL, hidden - c0) : 0;
  const unsigned short* xg = reinterpret_cast<const unsigned short*>(x) + t * hidden + c0;
  unsigned char* qg = reinterpret_cast<unsigned char*>(q) + t * hidden + c0;
  const bool vec = (hidden & 7) == 0 && aligned(x, 16) && aligned(q, 8);
  float amax = 0.0f;
  uint4 v = make_uint4(0, 0, 0, 0);
  if (vec) {
    if (8 * lane < n) {
      v = __ldcs(reinterpret_cast<const uint4*>(xg) + lane);
      amax = absmax8(v);
    }
  } else {
    for (long long c = lane; c < n; c += 16) amax = fmaxf(amax, fabsf(bf16_at(xg, c)));
  }
#pragma unroll
  for (int o = 8; o > 0; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
  const float a = fmaxf(amax, 1e-4f), inv = 448.0f / a;
  if (!live) return;
  if (lane == 0) scale_block[t * blocks + b] = a / 448.0f;
  if (vec) {
    if (8 * lane < n) store8(qg + 8 * lane, v, inv);
  } else {
    for (long long c = lane; c < n; c += 16) qg[c] = e4m3(bf16_at(xg, c) * inv);
  }
}
