// kwb:launch softmax_f32 grid=(rows) block=(BLOCK) smem=(4 * cols * (1 - min(1, cols / 12289))) args=(x, y, rows, cols)
// kwb:tune BLOCK=256,512,1024
// y = exp(x - max) / sum(exp(x - max)) per row, one block per row. Rows of up to 12288 columns
// (48 KiB) are read from global memory once into shared memory (the smem expression is 4*cols
// for those rows and 0 for longer ones); longer rows are read three times (max, sum, write).
// Reductions: warp shuffles, then one value per warp through shared memory.
#define CACHE_COLS 12288

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Block-wide max or sum, returned to every thread.
template <bool Max>
__device__ float block_reduce(float v, float* red) {
  v = Max ? warp_max(v) : warp_sum(v);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  if (lane == 0) red[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float w = lane < warps ? red[lane] : (Max ? __int_as_float(0xff800000) : 0.f);
    w = Max ? warp_max(w) : warp_sum(w);
    if (lane == 0) red[32] = w;
  }
  __syncthreads();
  const float out = red[32];
  __syncthreads();  // red is reused by the next reduction
  return out;
}

extern "C" __global__ void softmax_f32(const float* __restrict__ x, float* __restrict__ y, long long rows,
                                       long long cols) {
  extern __shared__ float cache[];
  __shared__ float red[33];
  const float* xr = x + (long long)blockIdx.x * cols;
  float* yr = y + (long long)blockIdx.x * cols;
  const bool cached = cols <= CACHE_COLS;
  const bool vec = (cols & 3) == 0 && ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0;
  const int tid = threadIdx.x, nt = blockDim.x;

  float m = __int_as_float(0xff800000);
  if (vec) {
    const float4* x4 = reinterpret_cast<const float4*>(xr);
    for (long long i = tid; i < cols / 4; i += nt) {
      const float4 v = __ldg(x4 + i);
      if (cached) reinterpret_cast<float4*>(cache)[i] = v;
      m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
  } else {
    for (long long i = tid; i < cols; i += nt) {
      const float v = __ldg(xr + i);
      if (cached) cache[i] = v;
      m = fmaxf(m, v);
    }
  }
  m = block_reduce<true>(m, red);

  float s = 0.f;
  if (cached) {
    for (long long i = tid; i < cols; i += nt) {
      const float e = expf(cache[i] - m);
      cache[i] = e;
      s += e;
    }
  } else {
    for (long long i = tid; i < cols; i += nt) s += expf(__ldg(xr + i) - m);
  }
  const float inv = 1.f / block_reduce<false>(s, red);

  if (cached && vec) {
    float4* y4 = reinterpret_cast<float4*>(yr);
    for (long long i = tid; i < cols / 4; i += nt) {
      const float4 e = reinterpret_cast<const float4*>(cache)[i];
      y4[i] = make_float4(e.x * inv, e.y * inv, e.z * inv, e.w * inv);
    }
  } else if (cached) {
    for (long long i = tid; i < cols; i += nt) yr[i] = cache[i] * inv;
  } else {
    for (long long i = tid; i < cols; i += nt) yr[i] = expf(__ldg(xr + i) - m) * inv;
  }
}
