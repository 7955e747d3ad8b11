// histogram u8, cuda-launcher: a simple correct launcher (a template to start from:
// GET /v1/specs/histogram). The host entry launches two kernels on the given stream and returns;
// the workbench synchronises and times that stream. The bins are an output (poisoned before every
// call), so the first kernel zeroes them, even for an empty x. Then each block counts its
// grid-stride share of x into 256 bins in shared memory and adds them to the output with one
// atomicAdd per bin (integer sums: the same result whatever the order).
#include <cstdint>
#include <cuda_runtime.h>

namespace {
__global__ void zero_bins(uint32_t* bins) { bins[threadIdx.x] = 0; }

__global__ void count_bytes(const uint8_t* x, uint32_t* bins, int64_t n) {
  __shared__ uint32_t local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&local[x[i]], 1u);
  __syncthreads();
  if (local[threadIdx.x] != 0) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
}  // namespace

extern "C" void kwb_histogram_u8(const uint8_t* x, uint32_t* bins, int64_t n, cudaStream_t stream) {
  zero_bins<<<1, 256, 0, stream>>>(bins);  // one thread per bin
  if (n <= 0) return;
  const int64_t tiles = (n + 255) / 256;
  count_bytes<<<unsigned(tiles < 4096 ? tiles : 4096), 256, 0, stream>>>(x, bins, n);
}
