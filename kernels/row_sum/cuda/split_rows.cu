// kwb:launch row_sum_f32 grid=(rows, ceil_div(cols, CHUNK)) block=(256) args=(x, y, rows, cols, workspace)
// kwb:workspace bytes=4*rows*ceil_div(cols, CHUNK) + 4*rows
// kwb:tune CHUNK=8192,32768
// y[r] = sum of row r. Block (r, j) sums columns [j*CHUNK, (j+1)*CHUNK) of row r with 16-byte loads
// when the rows are 16-byte aligned, then a warp-shuffle tree. A row of one chunk is written
// directly; otherwise each block stores its partial sum in the workspace, and the last block of
// the row to finish (a counter per row, the workspace starts zeroed) adds the partials in chunk
// order, so the result is the same on every run.
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Sum over the block, valid in thread 0.
__device__ float block_sum(float v) {
  __shared__ float partial[32];
  v = warp_sum(v);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? partial[lane] : 0.f;
    v = warp_sum(v);
  }
  return v;
}

extern "C" __global__ void row_sum_f32(const float* __restrict__ x, float* __restrict__ y, long long rows,
                                       long long cols, unsigned char* workspace) {
  const long long r = blockIdx.x;
  const long long chunks = gridDim.y, j = blockIdx.y;
  const long long begin = j * CHUNK, end = min(cols, begin + (long long)CHUNK);
  const float* xr = x + r * cols;
  float s = 0.f;
  if ((cols & 3) == 0 && (reinterpret_cast<unsigned long long>(x) & 15) == 0) {
    const float4* x4 = reinterpret_cast<const float4*>(xr);
    for (long long i = begin / 4 + threadIdx.x; i < end / 4; i += blockDim.x) {
      const float4 v = __ldg(x4 + i);
      s += (v.x + v.y) + (v.z + v.w);
    }
  } else {
    for (long long i = begin + threadIdx.x; i < end; i += blockDim.x) s += __ldg(xr + i);
  }
  s = block_sum(s);
  if (threadIdx.x != 0) return;
  if (chunks == 1) {
    y[r] = s;
    return;
  }
  float* partials = reinterpret_cast<float*>(workspace);
  unsigned* done = reinterpret_cast<unsigned*>(workspace + 4 * rows * chunks);
  partials[r * chunks + j] = s;
  __threadfence();
  if (atomicAdd(done + r, 1u) != unsigned(chunks - 1)) return;
  __threadfence();
  const volatile float* p = partials + r * chunks;
  float total = 0.f;
  for (long long i = 0; i < chunks; ++i) total += p[i];
  y[r] = total;
}
