// layernorm f32, cuda-launcher: a simple correct launcher (a template to start from:
// GET /v1/specs/layernorm). The host entry launches one kernel on the given stream and returns;
// the workbench synchronises and times that stream. The kernel is the cuda template's: one block
// of 256 threads per row, two passes in double (the mean, then the biased variance of the
// deviations: exact enough on the large_offset rows near 1e4), eps = 1e-5; block sums in shared
// memory in a fixed order (the same result on every run).
#include <cstdint>
#include <cuda_runtime.h>

namespace {
constexpr int k_threads = 256;  // block_sum's tree assumes this block size

__device__ double block_sum(double* part, double v) {
  part[threadIdx.x] = v;
  __syncthreads();
  for (int half = k_threads / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  const double out = part[0];
  __syncthreads();  // part is reused by the next sum
  return out;
}

__global__ void layernorm_rows(const float* x, const float* gamma, const float* beta, float* y, int64_t cols) {
  __shared__ double part[k_threads];
  const float* xr = x + int64_t(blockIdx.x) * cols;
  float* yr = y + int64_t(blockIdx.x) * cols;
  double s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
  const double mean = block_sum(part, s) / double(cols);
  double ss = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) ss += (xr[c] - mean) * (xr[c] - mean);
  const double rstd = 1.0 / sqrt(block_sum(part, ss) / double(cols) + 1e-5);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = float((xr[c] - mean) * rstd * gamma[c] + beta[c]);
}
}  // namespace

extern "C" void kwb_layernorm_f32(const float* x, const float* gamma, const float* beta, float* y, int64_t rows,
                                  int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;  // no element of y
  layernorm_rows<<<unsigned(rows), k_threads, 0, stream>>>(x, gamma, beta, y, cols);  // one block per row
}
