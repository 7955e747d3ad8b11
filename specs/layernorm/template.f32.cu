// kwb:launch kwb_layernorm_f32 grid=(rows) block=(256) args=(x, gamma, beta, y, rows, cols)
// layernorm f32, cuda: a simple correct kernel (a template to start from: GET /v1/specs/layernorm).
// One block per row, as the cpu template: two passes in double (the mean, then the biased
// variance), eps = 1e-5; block sums in shared memory in a fixed order.
__device__ double block_sum(double* part, double v) {
  part[threadIdx.x] = v;
  __syncthreads();
  for (int half = 128; half > 0; half >>= 1) {
    if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  const double out = part[0];
  __syncthreads();  // part is reused by the next sum
  return out;
}

extern "C" __global__ void kwb_layernorm_f32(const float* x, const float* gamma, const float* beta, float* y,
                                             long long rows, long long cols) {
  __shared__ double part[256];
  const float* xr = x + (long long)blockIdx.x * cols;
  float* yr = y + (long long)blockIdx.x * cols;
  double s = 0;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
  const double mean = block_sum(part, s) / (double)cols;
  double ss = 0;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) ss += (xr[c] - mean) * (xr[c] - mean);
  const double rstd = 1.0 / sqrt(block_sum(part, ss) / (double)cols + 1e-5);
  for (long long c = threadIdx.x; c < cols; c += blockDim.x)
    yr[c] = (float)((xr[c] - mean) * rstd * gamma[c] + beta[c]);
}
