// The GPU reference of cross_entropy (docs/specs.md "GPU references"): one block of 256 threads
// per row; the row max, the sum of exp(x - max) and the sum of the logits in double, each added in
// shared memory in a fixed order (deterministic), then the loss as in reference.cpp, written as a
// double. bf16 logits arrive as their bits (the top half of an f32).
#define THREADS 256

__device__ double logit(const unsigned short* x, long long c) { return double(__uint_as_float(unsigned(x[c]) << 16)); }

// Tree reduction over the block in a fixed order; op 0 adds, op 1 takes the maximum.
__device__ double block_reduce(double v, double* part, int op) {
  part[threadIdx.x] = v;
  __syncthreads();
  for (int half = THREADS / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half)
      part[threadIdx.x] = op == 0 ? part[threadIdx.x] + part[threadIdx.x + half] : fmax(part[threadIdx.x], part[threadIdx.x + half]);
    __syncthreads();
  }
  const double out = part[0];
  __syncthreads();
  return out;
}

extern "C" __global__ void cross_entropy_reference_bf16(const unsigned short* logits, const int* labels, double* loss,
                                                        long long rows, long long vocab, double label_smoothing) {
  __shared__ double part[THREADS];
  const long long r = blockIdx.x;
  const unsigned short* x = logits + r * vocab;
  double m = __longlong_as_double((long long)0xfff0000000000000ULL);  // -inf
  for (long long c = threadIdx.x; c < vocab; c += THREADS) m = fmax(m, logit(x, c));
  m = block_reduce(m, part, 1);
  double sum = 0, sum_x = 0;
  for (long long c = threadIdx.x; c < vocab; c += THREADS) {
    sum += exp(logit(x, c) - m);
    sum_x += logit(x, c);
  }
  sum = block_reduce(sum, part, 0);
  sum_x = block_reduce(sum_x, part, 0);
  if (threadIdx.x == 0) {
    const double lse = m + log(sum);
    const double s = label_smoothing;
    const double smooth = s != 0 ? double(vocab) * lse - sum_x : 0.0;
    loss[r] = (1 - s) * (lse - logit(x, labels[r])) + s / double(vocab) * smooth;
  }
}
