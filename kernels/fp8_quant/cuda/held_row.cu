// kwb:launch fp8_quant_per_token grid=(tokens) block=(BLOCK) args=(x, q, scale_token, tokens, hidden)
// kwb:tune BLOCK=128,256,512
// One block per row, one pass over global memory: each thread holds up to HELD 16-byte loads (8 bf16
// each) of its row in registers while the block finds the row's largest |x| (an integer max over
// the bf16 bits, warp shuffles, then across warps); then q = e4m3(x * (448 / a)), a = max(amax,
// 1e-4), converted two at a time and stored 8 bytes a thread. Rows longer than HELD * BLOCK * 8
// read their rest twice; rows whose length is not a multiple of 8 (or unaligned buffers) take a
// scalar path.
#define HELD 4
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

__device__ float block_max(float v, float* red) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  if (lane == 0) red[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float t = lane < warps ? red[lane] : 0.0f;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) t = fmaxf(t, __shfl_xor_sync(0xffffffffu, t, o));
    if (lane == 0) red[32] = t;
  }
  __syncthreads();
  return red[32];
}

extern "C" __global__ void fp8_quant_per_token(const __nv_bfloat16* __restrict__ x, __nv_fp8_e4m3* __restrict__ q,
                                               float* __restrict__ scale_token, long long tokens, long long hidden) {
  __shared__ float red[33];
  const unsigned short* xr = reinterpret_cast<const unsigned short*>(x) + (long long)blockIdx.x * hidden;
  unsigned char* qr = reinterpret_cast<unsigned char*>(q) + (long long)blockIdx.x * hidden;
  const int tid = threadIdx.x, nt = blockDim.x;
  const bool vec = (hidden & 7) == 0 && aligned(x, 16) && aligned(q, 8);
  float amax = 0.0f;
  uint4 held[HELD];
  const long long nv = hidden >> 3;
  const uint4* xv = reinterpret_cast<const uint4*>(xr);
  if (vec) {
#pragma unroll
    for (int j = 0; j < HELD; ++j) {
      const long long i = tid + (long long)j * nt;
      if (i < nv) {
        held[j] = __ldcs(xv + i);
        amax = fmaxf(amax, absmax8(held[j]));
      }
    }
    for (long long i = tid + (long long)HELD * nt; i < nv; i += nt) amax = fmaxf(amax, absmax8(__ldg(xv + i)));
  } else {
    for (long long c = tid; c < hidden; c += nt) amax = fmaxf(amax, fabsf(bf16_at(xr, c)));
  }
  const float a = fmaxf(block_max(amax, red), 1e-4f), inv = 448.0f / a;
  if (tid == 0) scale_token[blockIdx.x] = a / 448.0f;
  if (vec) {
#pragma unroll
    for (int j = 0; j < HELD; ++j) {
      const long long i = tid + (long long)j * nt;
      if (i < nv) store8(qr + 8 * i, held[j], inv);
    }
    for (long long i = tid + (long long)HELD * nt; i < nv; i += nt) store8(qr + 8 * i, __ldg(xv + i), inv);
  } else {
    for (long long c = tid; c < hidden; c += nt) qr[c] = e4m3(bf16_at(xr, c) * inv);
  }
}
