// rmsnorm f32, cuda-launcher: a simple correct launcher (a template to start from:
// GET /v1/specs/rmsnorm). The host entry launches one kernel on the given stream and returns; the
// workbench synchronises and times that stream. The kernel is the cuda template's: one block of
// 256 threads per row, y = x / sqrt(mean(x^2) + 1e-6) * w, the sum of squares in double, added in
// shared memory in a fixed order.
#include <cstdint>
#include <cuda_runtime.h>

namespace {
constexpr int k_threads = 256;  // the reduction tree assumes this block size

__global__ void rmsnorm_rows(const float* x, const float* w, float* y, int64_t cols) {
  __shared__ double part[k_threads];
  const float* xr = x + int64_t(blockIdx.x) * cols;
  float* yr = y + int64_t(blockIdx.x) * cols;
  double ss = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) ss += double(xr[c]) * double(xr[c]);
  part[threadIdx.x] = ss;
  __syncthreads();
  for (int half = k_threads / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  const double rms = sqrt(part[0] / double(cols) + 1e-6);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = float(double(xr[c]) / rms * double(w[c]));
}
}  // namespace

extern "C" void kwb_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t cols,
                                cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;  // no element of y
  rmsnorm_rows<<<unsigned(rows), k_threads, 0, stream>>>(x, w, y, cols);  // one block per row
}
