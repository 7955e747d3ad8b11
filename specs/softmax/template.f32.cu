// kwb:launch kwb_softmax_f32 grid=(rows) block=(256) args=(x, y, rows, cols)
// softmax f32, cuda: a simple correct kernel (a template to start from: GET /v1/specs/softmax).
// One block per row, as the cpu template: the row max, then the sum of exp(x - max) in double,
// then y = exp(x - max) / sum. Block reductions in shared memory, in a fixed order.
__device__ double block_reduce(double* part, double v, bool take_max) {
  part[threadIdx.x] = v;
  __syncthreads();
  for (int half = 128; half > 0; half >>= 1) {
    if (threadIdx.x < half)
      part[threadIdx.x] = take_max ? fmax(part[threadIdx.x], part[threadIdx.x + half])
                                   : part[threadIdx.x] + part[threadIdx.x + half];
    __syncthreads();
  }
  const double out = part[0];
  __syncthreads();  // part is reused by the next reduction
  return out;
}

extern "C" __global__ void kwb_softmax_f32(const float* x, float* y, long long rows, long long cols) {
  __shared__ double part[256];
  const float* xr = x + (long long)blockIdx.x * cols;
  float* yr = y + (long long)blockIdx.x * cols;
  double m = __longlong_as_double((long long)0xfff0000000000000ULL);  // -inf
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) m = fmax(m, (double)xr[c]);
  m = block_reduce(part, m, true);
  double s = 0;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) s += exp((double)xr[c] - m);
  s = block_reduce(part, s, false);
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = (float)(exp((double)xr[c] - m) / s);
}
