// kwb:launch kwb_rmsnorm_f32 grid=(rows) block=(256) args=(x, w, y, rows, cols)
// rmsnorm f32, cuda: a simple correct kernel (a template to start from: GET /v1/specs/rmsnorm).
// One block per row, as the cpu template: y = x / sqrt(mean(x^2) + 1e-6) * w, the sum of squares
// in double, added in shared memory in a fixed order.
extern "C" __global__ void kwb_rmsnorm_f32(const float* x, const float* w, float* y, long long rows, long long cols) {
  __shared__ double part[256];
  const float* xr = x + (long long)blockIdx.x * cols;
  float* yr = y + (long long)blockIdx.x * cols;
  double ss = 0;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) ss += (double)xr[c] * (double)xr[c];
  part[threadIdx.x] = ss;
  __syncthreads();
  for (int half = 128; half > 0; half >>= 1) {
    if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  const double rms = sqrt(part[0] / (double)cols + 1e-6);
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = (float)((double)xr[c] / rms * (double)w[c]);
}
