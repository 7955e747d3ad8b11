// kwb:launch kwb_row_sum_f32 grid=(rows) block=(256) args=(x, y, rows, cols)
// row_sum f32, cuda: a simple correct kernel (a template to start from: GET /v1/specs/row_sum).
// One block per row: each thread sums a strided slice of the row in double, then the block adds
// the 256 partial sums in shared memory (a fixed order: the same result on every run).
extern "C" __global__ void kwb_row_sum_f32(const float* x, float* y, long long rows, long long cols) {
  __shared__ double part[256];
  const long long r = blockIdx.x;
  const float* xr = x + r * cols;
  double s = 0;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int half = 128; half > 0; half >>= 1) {
    if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[r] = (float)part[0];
}
