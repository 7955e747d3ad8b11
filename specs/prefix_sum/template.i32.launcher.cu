// prefix_sum i32, cuda-launcher: a simple correct inclusive scan in three kernels (a template to
// start from: GET /v1/specs/prefix_sum). The host entry takes scratch memory stream-ordered
// (cudaMallocAsync/cudaFreeAsync on the given stream), launches everything on that stream and
// returns; the workbench synchronises and times that stream. The kernels are the cuda template's.
// Sums wrap modulo 2^32 (computed as unsigned, where overflow is defined). 1: each block scans its
// tile of 256 elements into y and writes the tile's total to the scratch. 2: one block turns the
// totals into exclusive tile offsets (each thread scans a contiguous chunk of them, the chunk sums
// are scanned in shared memory). 3: each tile adds its offset. (A one-pass decoupled look-back
// scan is the way to a fast kernel; CUB's DeviceScan is the spec's baseline.)
#include <cstdint>
#include <cuda_runtime.h>

namespace {
constexpr int k_tile = 256, k_chunks = 1024;

__global__ void scan_tiles(const int32_t* x, int32_t* y, int64_t n, uint32_t* totals) {
  __shared__ uint32_t s[k_tile];
  const int64_t i = int64_t(blockIdx.x) * k_tile + threadIdx.x;
  s[threadIdx.x] = i < n ? uint32_t(x[i]) : 0u;
  __syncthreads();
  for (int offset = 1; offset < k_tile; offset <<= 1) {  // Hillis-Steele inclusive scan of the tile
    const uint32_t add = threadIdx.x >= offset ? s[threadIdx.x - offset] : 0u;
    __syncthreads();
    s[threadIdx.x] += add;
    __syncthreads();
  }
  if (i < n) y[i] = int32_t(s[threadIdx.x]);
  if (threadIdx.x == k_tile - 1) totals[blockIdx.x] = s[k_tile - 1];
}

__global__ void scan_totals(int64_t tiles, uint32_t* totals) {
  __shared__ uint32_t chunk_sum[k_chunks];
  const int64_t per = (tiles + k_chunks - 1) / k_chunks;
  const int64_t first = threadIdx.x * per, last = first + per < tiles ? first + per : tiles;
  uint32_t sum = 0;
  for (int64_t t = first; t < last; ++t) sum += totals[t];
  chunk_sum[threadIdx.x] = sum;
  __syncthreads();
  for (int offset = 1; offset < k_chunks; offset <<= 1) {  // inclusive scan of the chunk sums
    const uint32_t add = threadIdx.x >= offset ? chunk_sum[threadIdx.x - offset] : 0u;
    __syncthreads();
    chunk_sum[threadIdx.x] += add;
    __syncthreads();
  }
  uint32_t running = threadIdx.x == 0 ? 0u : chunk_sum[threadIdx.x - 1];  // exclusive offset of the chunk
  for (int64_t t = first; t < last; ++t) {
    const uint32_t total = totals[t];
    totals[t] = running;
    running += total;
  }
}

__global__ void add_offsets(int32_t* y, int64_t n, const uint32_t* offsets) {
  const int64_t i = int64_t(blockIdx.x) * k_tile + threadIdx.x;
  if (i < n) y[i] = int32_t(uint32_t(y[i]) + offsets[blockIdx.x]);
}
}  // namespace

extern "C" void kwb_prefix_sum_i32(const int32_t* x, int32_t* y, int64_t n, cudaStream_t stream) {
  if (n <= 0) return;  // no element of y
  const int64_t tiles = (n + k_tile - 1) / k_tile;  // grid.x <= 2^31 - 1: n up to ~5e11
  void* scratch = nullptr;
  if (cudaMallocAsync(&scratch, size_t(tiles) * sizeof(uint32_t), stream) != cudaSuccess) return;  // y stays unwritten: the check says so
  uint32_t* totals = static_cast<uint32_t*>(scratch);
  scan_tiles<<<unsigned(tiles), k_tile, 0, stream>>>(x, y, n, totals);
  scan_totals<<<1, k_chunks, 0, stream>>>(tiles, totals);
  add_offsets<<<unsigned(tiles), k_tile, 0, stream>>>(y, n, totals);
  cudaFreeAsync(scratch, stream);
}
