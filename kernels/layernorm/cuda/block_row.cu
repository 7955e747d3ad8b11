// kwb:launch layernorm_f32 grid=(rows) block=(BLOCK) smem=(4 * cols * (1 - min(1, cols / 12289))) args=(x, gamma, beta, y, rows, cols)
// kwb:tune BLOCK=256,512
// y = (x - mean) / sqrt(var + 1e-5) * gamma + beta per row, with var the mean of the squared
// deviations computed in a second pass (E[x^2] - mean^2 would cancel on rows near 1e4). Both
// passes work on the row shifted by its first element: x - x[0] is exact for values within a
// factor of two of each other (Sterbenz), so the rounding of the mean is relative to the row's
// spread, not to its offset (unshifted, a 2-column row near 1e4 whose two values are close got a
// mean off by a sizeable part of its standard deviation). Rows of up to 12288 columns are read
// from global memory once into shared memory, shifted.
#define CACHE_COLS 12288

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
  const float out = red[32];
  __syncthreads();
  return out;
}

extern "C" __global__ void layernorm_f32(const float* __restrict__ x, const float* __restrict__ gamma,
                                         const float* __restrict__ beta, float* __restrict__ y, long long rows,
                                         long long cols) {
  extern __shared__ float cache[];
  __shared__ float red[33];
  const float* xr = x + (long long)blockIdx.x * cols;
  float* yr = y + (long long)blockIdx.x * cols;
  const bool cached = cols <= CACHE_COLS;
  const bool vec = (cols & 3) == 0 && ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(gamma) |
                                        reinterpret_cast<unsigned long long>(beta) | reinterpret_cast<unsigned long long>(y)) & 15) == 0;
  const int tid = threadIdx.x, nt = blockDim.x;
  const float shift = __ldg(xr);
  auto at = [&](long long i) { return cached ? cache[i] : __ldg(xr + i) - shift; };  // x - x[0]

  float s = 0.f;
  if (vec) {
    const float4* x4 = reinterpret_cast<const float4*>(xr);
    for (long long i = tid; i < cols / 4; i += nt) {
      float4 v = __ldg(x4 + i);
      v = make_float4(v.x - shift, v.y - shift, v.z - shift, v.w - shift);
      if (cached) reinterpret_cast<float4*>(cache)[i] = v;
      s += (v.x + v.y) + (v.z + v.w);
    }
  } else {
    for (long long i = tid; i < cols; i += nt) {
      const float v = __ldg(xr + i) - shift;
      if (cached) cache[i] = v;
      s += v;
    }
  }
  const float mean = block_sum(s, red) / float(cols);  // of the shifted row
  float ss = 0.f;
  for (long long i = tid; i < cols; i += nt) {
    const float d = at(i) - mean;
    ss += d * d;
  }
  const float rstd = rsqrtf(block_sum(ss, red) / float(cols) + 1e-5f);

  if (vec) {
    const float4* g4 = reinterpret_cast<const float4*>(gamma);
    const float4* b4 = reinterpret_cast<const float4*>(beta);
    float4* y4 = reinterpret_cast<float4*>(yr);
    for (long long i = tid; i < cols / 4; i += nt) {
      const float4 g = __ldg(g4 + i), b = __ldg(b4 + i);
      const float v0 = at(4 * i), v1 = at(4 * i + 1), v2 = at(4 * i + 2), v3 = at(4 * i + 3);
      y4[i] = make_float4((v0 - mean) * rstd * g.x + b.x, (v1 - mean) * rstd * g.y + b.y,
                          (v2 - mean) * rstd * g.z + b.z, (v3 - mean) * rstd * g.w + b.w);
    }
  } else {
    for (long long i = tid; i < cols; i += nt) yr[i] = (at(i) - mean) * rstd * __ldg(gamma + i) + __ldg(beta + i);
  }
}
