// softmax f32, cuda-launcher: a simple correct launcher (a template to start from:
// GET /v1/specs/softmax). The host entry launches one kernel on the given stream and returns; the
// workbench synchronises and times that stream. The kernel is the cuda template's: one block of
// 256 threads per row, the row max, then the sum of exp(x - max) in double, then
// y = exp(x - max) / sum. Block reductions in shared memory, in a fixed order.
#include <cstdint>
#include <cuda_runtime.h>

namespace {
constexpr int k_threads = 256;  // block_reduce's tree assumes this block size

__device__ double block_reduce(double* part, double v, bool take_max) {
  part[threadIdx.x] = v;
  __syncthreads();
  for (int half = k_threads / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half)
      part[threadIdx.x] = take_max ? fmax(part[threadIdx.x], part[threadIdx.x + half])
                                   : part[threadIdx.x] + part[threadIdx.x + half];
    __syncthreads();
  }
  const double out = part[0];
  __syncthreads();  // part is reused by the next reduction
  return out;
}

__global__ void softmax_rows(const float* x, float* y, int64_t cols) {
  __shared__ double part[k_threads];
  const float* xr = x + int64_t(blockIdx.x) * cols;
  float* yr = y + int64_t(blockIdx.x) * cols;
  double m = __longlong_as_double(static_cast<long long>(0xfff0000000000000ULL));  // -inf
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmax(m, double(xr[c]));
  m = block_reduce(part, m, true);
  double s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += exp(double(xr[c]) - m);
  s = block_reduce(part, s, false);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = float(exp(double(xr[c]) - m) / s);
}
}  // namespace

extern "C" void kwb_softmax_f32(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;  // no element of y
  softmax_rows<<<unsigned(rows), k_threads, 0, stream>>>(x, y, cols);  // one block per row
}
