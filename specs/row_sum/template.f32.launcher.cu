// row_sum f32, cuda-launcher: a simple correct launcher (a template to start from:
// GET /v1/specs/row_sum). The host entry launches one kernel on the given stream and returns; the
// workbench synchronises and times that stream. The kernel is the cuda template's: one block of
// 256 threads per row, each thread summing a strided slice of the row in double, then the block
// adds the 256 partial sums in shared memory (a fixed order: the same result on every run).
#include <cstdint>
#include <cuda_runtime.h>

namespace {
constexpr int k_threads = 256;  // the reduction tree assumes this block size

__global__ void sum_rows(const float* x, float* y, int64_t cols) {
  __shared__ double part[k_threads];
  const int64_t r = blockIdx.x;
  const float* xr = x + r * cols;
  double s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int half = k_threads / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[r] = float(part[0]);
}
}  // namespace

extern "C" void kwb_row_sum_f32(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0) return;  // no element of y (a row of 0 columns sums to 0: the kernel writes it)
  sum_rows<<<unsigned(rows), k_threads, 0, stream>>>(x, y, cols);  // one block per row
}
