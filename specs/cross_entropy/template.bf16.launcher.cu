// cross_entropy bf16, cuda-launcher: a simple correct launcher (a template to start from:
// GET /v1/specs/cross_entropy). The host entry launches one kernel on the given stream and
// returns; the workbench synchronises and times that stream. The kernel is the cuda template's:
// one block of 256 threads per row, the row max, the sum of exp(x - max) and the sum of the logits
// in double, added in shared memory in a fixed order, then the smoothed loss.
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {
constexpr int k_threads = 256;  // the reduction tree assumes this block size

__device__ double block_reduce(double v, double* part, bool take_max) {
  part[threadIdx.x] = v;
  __syncthreads();
  for (int half = k_threads / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half)
      part[threadIdx.x] = take_max ? fmax(part[threadIdx.x], part[threadIdx.x + half]) : part[threadIdx.x] + part[threadIdx.x + half];
    __syncthreads();
  }
  const double out = part[0];
  __syncthreads();
  return out;
}

__global__ void cross_entropy_rows(const __nv_bfloat16* logits, const int32_t* labels, float* loss, int64_t vocab,
                                   double label_smoothing) {
  __shared__ double part[k_threads];
  const __nv_bfloat16* x = logits + int64_t(blockIdx.x) * vocab;
  double m = -INFINITY;
  for (int64_t c = threadIdx.x; c < vocab; c += blockDim.x) m = fmax(m, double(__bfloat162float(x[c])));
  m = block_reduce(m, part, true);
  double sum = 0, sum_x = 0;
  for (int64_t c = threadIdx.x; c < vocab; c += blockDim.x) {
    const double v = __bfloat162float(x[c]);
    sum += exp(v - m);
    sum_x += v;
  }
  sum = block_reduce(sum, part, false);
  sum_x = block_reduce(sum_x, part, false);
  if (threadIdx.x == 0) {
    const double lse = m + log(sum), s = label_smoothing;
    const double target = lse - double(__bfloat162float(x[labels[blockIdx.x]]));
    loss[blockIdx.x] = float((1 - s) * target + s * (lse - sum_x / double(vocab)));
  }
}
}  // namespace

extern "C" void kwb_cross_entropy_bf16(const __nv_bfloat16* logits, const int32_t* labels, float* loss, int64_t rows,
                                       int64_t vocab, double label_smoothing, cudaStream_t stream) {
  if (rows <= 0 || vocab <= 0) return;  // no element of loss
  cross_entropy_rows<<<unsigned(rows), k_threads, 0, stream>>>(logits, labels, loss, vocab, label_smoothing);
}
