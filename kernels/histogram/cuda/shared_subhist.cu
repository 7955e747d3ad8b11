// kwb:launch histogram_u8 grid=(max(1, min(ceil_div(n, 16 * BLOCK), 132 * 8))) block=(BLOCK) args=(x, bins, n, workspace)
// kwb:workspace bytes=4*256 + 4
// kwb:tune BLOCK=256,512
// bins[v] = number of bytes of x equal to v. Each warp counts into its own 256-bin histogram in
// shared memory (shared-memory atomics; one copy per warp keeps collisions low when the data is
// concentrated on a few values), reading 16 bytes per load. Blocks add their totals into 256
// counters in the workspace (zeroed before every call); the last block to finish copies them to
// `bins`, which the workbench poisons before every call.
extern "C" __global__ void histogram_u8(const unsigned char* __restrict__ x, unsigned* __restrict__ bins, long long n,
                                        unsigned char* workspace) {
  __shared__ unsigned hist[BLOCK / 32][256];
  unsigned* totals = reinterpret_cast<unsigned*>(workspace);
  unsigned* done = totals + 256;
  for (int i = threadIdx.x; i < (BLOCK / 32) * 256; i += blockDim.x) (&hist[0][0])[i] = 0;
  __syncthreads();
  unsigned* mine = hist[threadIdx.x >> 5];
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long done_bytes = 0;
  if ((reinterpret_cast<unsigned long long>(x) & 15) == 0) {
    const uint4* x16 = reinterpret_cast<const uint4*>(x);
    for (long long i = first; i < n / 16; i += stride) {
      const uint4 v = __ldg(x16 + i);
      const unsigned words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (int w = 0; w < 4; ++w)
#pragma unroll
        for (int b = 0; b < 4; ++b) atomicAdd(mine + ((words[w] >> (8 * b)) & 0xffu), 1u);
    }
    done_bytes = n / 16 * 16;
  }
  for (long long i = done_bytes + first; i < n; i += stride) atomicAdd(mine + x[i], 1u);
  __syncthreads();
  for (int v = threadIdx.x; v < 256; v += blockDim.x) {
    unsigned sum = 0;
    for (int w = 0; w < BLOCK / 32; ++w) sum += hist[w][v];
    if (sum) atomicAdd(totals + v, sum);
  }
  __threadfence();
  __syncthreads();
  __shared__ bool last;
  if (threadIdx.x == 0) last = atomicAdd(done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  for (int v = threadIdx.x; v < 256; v += blockDim.x) bins[v] = atomicAdd(totals + v, 0u);
}
