// kwb:workspace bytes=4 * ceil_div(n, 256)
// kwb:launch kwb_scan_tiles grid=(ceil_div(n, 256)) block=(256) args=(x, y, n, workspace)
// kwb:launch kwb_scan_totals grid=(1) block=(1024) args=(n, workspace)
// kwb:launch kwb_add_offsets grid=(ceil_div(n, 256)) block=(256) args=(y, n, workspace)
// prefix_sum i32, cuda: a simple correct inclusive scan in three launches (a template to start
// from: GET /v1/specs/prefix_sum). Sums wrap modulo 2^32 (computed as unsigned, where overflow is
// defined). 1: each block scans its tile of 256 elements into y and writes the tile's total to
// the workspace. 2: one block turns the totals into exclusive tile offsets (each thread scans a
// contiguous chunk of them, the chunk sums are scanned in shared memory). 3: each tile adds its
// offset. (A one-pass decoupled look-back scan is the way to a fast kernel.)
extern "C" __global__ void kwb_scan_tiles(const int* x, int* y, long long n, unsigned char* workspace) {
  __shared__ unsigned int s[256];
  unsigned int* totals = reinterpret_cast<unsigned int*>(workspace);
  const long long i = (long long)blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = i < n ? (unsigned int)x[i] : 0u;
  __syncthreads();
  for (int offset = 1; offset < 256; offset <<= 1) {  // Hillis-Steele inclusive scan of the tile
    const unsigned int add = threadIdx.x >= offset ? s[threadIdx.x - offset] : 0u;
    __syncthreads();
    s[threadIdx.x] += add;
    __syncthreads();
  }
  if (i < n) y[i] = (int)s[threadIdx.x];
  if (threadIdx.x == 255) totals[blockIdx.x] = s[255];
}

extern "C" __global__ void kwb_scan_totals(long long n, unsigned char* workspace) {
  __shared__ unsigned int chunk_sum[1024];
  unsigned int* totals = reinterpret_cast<unsigned int*>(workspace);
  const long long tiles = (n + 255) / 256, per = (tiles + 1023) / 1024;
  const long long first = threadIdx.x * per, last = first + per < tiles ? first + per : tiles;
  unsigned int sum = 0;
  for (long long t = first; t < last; ++t) sum += totals[t];
  chunk_sum[threadIdx.x] = sum;
  __syncthreads();
  for (int offset = 1; offset < 1024; offset <<= 1) {  // inclusive scan of the chunk sums
    const unsigned int add = threadIdx.x >= offset ? chunk_sum[threadIdx.x - offset] : 0u;
    __syncthreads();
    chunk_sum[threadIdx.x] += add;
    __syncthreads();
  }
  unsigned int running = threadIdx.x == 0 ? 0u : chunk_sum[threadIdx.x - 1];  // exclusive offset of the chunk
  for (long long t = first; t < last; ++t) {
    const unsigned int total = totals[t];
    totals[t] = running;
    running += total;
  }
}

extern "C" __global__ void kwb_add_offsets(int* y, long long n, unsigned char* workspace) {
  const unsigned int* offsets = reinterpret_cast<const unsigned int*>(workspace);
  const long long i = (long long)blockIdx.x * 256 + threadIdx.x;
  if (i < n) y[i] = (int)((unsigned int)y[i] + offsets[blockIdx.x]);
}
