// kwb:launch scan_i32 grid=(ceil_div(n, 256 * ITEMS)) block=(256) args=(x, y, n, workspace)
// kwb:workspace bytes=16 + 8*ceil_div(n, 256 * ITEMS)
// kwb:tune ITEMS=8,16
// Inclusive prefix sum with 32-bit wrap-around, in one pass (decoupled look-back, as in CUB).
// Tiles are numbered in the order blocks start (a counter in the workspace), so a block only
// waits for tiles that started earlier. Each tile publishes its aggregate, then looks back over
// its predecessors' statuses (a 64-bit word per tile: flag << 32 | value; 0 = not yet, 1 =
// aggregate, 2 = inclusive prefix) a warp at a time, and publishes its inclusive prefix.
#define THREADS 256
#define TILE (THREADS * ITEMS)

__device__ __forceinline__ unsigned warp_inclusive_scan(unsigned v, int lane) {
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const unsigned t = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += t;
  }
  return v;
}

__device__ __forceinline__ void publish(unsigned long long* status, long long tile, unsigned flag, unsigned value) {
  __threadfence();
  atomicExch(status + tile, ((unsigned long long)flag << 32) | value);
}

extern "C" __global__ void scan_i32(const int* __restrict__ x, int* __restrict__ y, long long n, unsigned char* workspace) {
  __shared__ unsigned warp_totals[THREADS / 32];
  __shared__ unsigned tile_prefix;
  __shared__ long long tile_id;
  unsigned* counter = reinterpret_cast<unsigned*>(workspace);
  unsigned long long* status = reinterpret_cast<unsigned long long*>(workspace + 16);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (tid == 0) tile_id = atomicAdd(counter, 1u);
  __syncthreads();
  const long long tile = tile_id;
  const long long base = tile * TILE + (long long)tid * ITEMS;

  unsigned v[ITEMS];
  const bool full = base + ITEMS <= n && ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0;
  if (full) {
#pragma unroll
    for (int i = 0; i < ITEMS; i += 4) {
      const int4 q = __ldg(reinterpret_cast<const int4*>(x + base + i));
      v[i] = q.x, v[i + 1] = q.y, v[i + 2] = q.z, v[i + 3] = q.w;
    }
  } else {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) v[i] = base + i < n ? unsigned(__ldg(x + base + i)) : 0u;
  }
#pragma unroll
  for (int i = 1; i < ITEMS; ++i) v[i] += v[i - 1];

  // Block scan of the thread totals.
  const unsigned incl = warp_inclusive_scan(v[ITEMS - 1], lane);
  if (lane == 31) warp_totals[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    const unsigned t = lane < THREADS / 32 ? warp_totals[lane] : 0u;
    const unsigned s = warp_inclusive_scan(t, lane);
    if (lane < THREADS / 32) warp_totals[lane] = s - t;  // exclusive prefix of each warp
  }
  __syncthreads();
  const unsigned thread_excl = warp_totals[warp] + incl - v[ITEMS - 1];

  // The tile's aggregate: the last thread's inclusive value.
  __shared__ unsigned tile_total;
  if (tid == THREADS - 1) tile_total = thread_excl + v[ITEMS - 1];
  __syncthreads();

  if (warp == 0) {
    unsigned excl = 0;
    if (tile == 0) {
      if (lane == 0) publish(status, 0, 2, tile_total);
    } else {
      if (lane == 0) publish(status, tile, 1, tile_total);
      long long pred = tile - 1;
      while (true) {
        const long long idx = pred - lane;
        unsigned long long st = idx >= 0 ? atomicAdd(status + idx, 0ull) : (2ull << 32);
        const unsigned flag = unsigned(st >> 32);
        if (__any_sync(0xffffffffu, flag == 0)) continue;  // a predecessor has not published yet
        const unsigned inclusive = __ballot_sync(0xffffffffu, flag == 2);
        const int stop = inclusive ? __ffs(inclusive) - 1 : 31;
        unsigned part = lane <= stop ? unsigned(st) : 0u;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) part += __shfl_xor_sync(0xffffffffu, part, o);
        excl += part;
        if (inclusive) break;
        pred -= 32;
      }
      if (lane == 0) publish(status, tile, 2, excl + tile_total);
    }
    if (lane == 0) tile_prefix = excl;
  }
  __syncthreads();

  const unsigned offset = tile_prefix + thread_excl;
  if (full) {
#pragma unroll
    for (int i = 0; i < ITEMS; i += 4)
      *reinterpret_cast<int4*>(y + base + i) =
          make_int4(int(v[i] + offset), int(v[i + 1] + offset), int(v[i + 2] + offset), int(v[i + 3] + offset));
  } else {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
      if (base + i < n) y[base + i] = int(v[i] + offset);
  }
}
