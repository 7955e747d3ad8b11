// kwb-expect: op=row_sum status=incorrect reason="output y:"
// An uninitialised read that happens to pass: the block reduction adds all 32 per-warp slots of
// a shared array but a block of 256 threads writes only 8 of them. On a fresh context shared
// memory often reads as zeros and the result is right; the workbench fills every SM's shared
// memory with a NaN pattern before each validation call, so the garbage shows.
// kwb:launch rowsum grid=(rows) block=(256) args=(x, y, rows, cols)
extern "C" __global__ void rowsum(const float* x, float* y, long long rows, long long cols) {
  __shared__ float partial[32];
  const float* xr = x + (long long)blockIdx.x * cols;
  float s = 0.f;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.f;
    for (int w = 0; w < 32; ++w) t += partial[w];  // slots 8..31 were never written
    y[blockIdx.x] = t;
  }
}
