// kwb:launch kwb_histogram_zero grid=(1) block=(256) args=(bins)
// kwb:launch kwb_histogram_u8 grid=(max(1, min(ceil_div(n, 256), 4096))) block=(256) args=(x, bins, n)
// histogram u8, cuda: a simple correct kernel (a template to start from: GET /v1/specs/histogram).
// The bins are an output (poisoned before every call): the first launch zeroes them. Then each
// block counts its grid-stride share of x into 256 bins in shared memory and adds them to the
// output with one atomicAdd per bin (integer sums: the same result whatever the order).
extern "C" __global__ void kwb_histogram_zero(unsigned int* bins) { bins[threadIdx.x] = 0; }

extern "C" __global__ void kwb_histogram_u8(const unsigned char* x, unsigned int* bins, long long n) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&local[x[i]], 1u);
  __syncthreads();
  if (local[threadIdx.x] != 0) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
