// kwb:launch kwb_cross_entropy_bf16 grid=(rows) block=(256) args=(logits, labels, loss, rows, vocab, label_smoothing)
// cross_entropy bf16, cuda: a simple correct kernel (a template to start from:
// GET /v1/specs/cross_entropy). One block of 256 threads per row: the row max, the sum of
// exp(x - max) and the sum of the logits in double, added in shared memory in a fixed order, then
// loss = (1 - s) * (lse - x[y]) + s * (lse - mean(x)).
#include <cuda_bf16.h>

__device__ double block_sum(double v, double* part) {
  part[threadIdx.x] = v;
  __syncthreads();
  for (int half = 128; half > 0; half >>= 1) {
    if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  const double out = part[0];
  __syncthreads();
  return out;
}

__device__ double block_max(double v, double* part) {
  part[threadIdx.x] = v;
  __syncthreads();
  for (int half = 128; half > 0; half >>= 1) {
    if (threadIdx.x < half) part[threadIdx.x] = fmax(part[threadIdx.x], part[threadIdx.x + half]);
    __syncthreads();
  }
  const double out = part[0];
  __syncthreads();
  return out;
}

extern "C" __global__ void kwb_cross_entropy_bf16(const __nv_bfloat16* logits, const int* labels, float* loss,
                                                  long long rows, long long vocab, double label_smoothing) {
  __shared__ double part[256];
  const __nv_bfloat16* x = logits + (long long)blockIdx.x * vocab;
  double m = __longlong_as_double((long long)0xfff0000000000000ULL);  // -inf
  for (long long c = threadIdx.x; c < vocab; c += blockDim.x) m = fmax(m, (double)__bfloat162float(x[c]));
  m = block_max(m, part);
  double sum = 0, sum_x = 0;
  for (long long c = threadIdx.x; c < vocab; c += blockDim.x) {
    const double v = __bfloat162float(x[c]);
    sum += exp(v - m);
    sum_x += v;
  }
  sum = block_sum(sum, part);
  sum_x = block_sum(sum_x, part);
  if (threadIdx.x == 0) {
    const double lse = m + log(sum), s = label_smoothing;
    const double target = lse - (double)__bfloat162float(x[labels[blockIdx.x]]);
    loss[blockIdx.x] = (float)((1 - s) * target + s * (lse - sum_x / (double)vocab));
  }
}
