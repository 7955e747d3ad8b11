// kwb:launch topk_f32 grid=(rows) block=(BLOCK) args=(x, values, indices, rows, cols, k)
// kwb:tune BLOCK=256,512,1024
// One block per row, radix select on order-preserving 32-bit keys of the floats, 8 bits a pass.
// Pass 1 histograms the top byte over the row in global memory (16-byte loads when aligned) and
// finds the bin holding the k-th largest. When the elements at or above that bin fit in shared
// memory (CAND), they are gathered there in column order and the other three passes and the
// output run on them: the row is read from global memory twice. Otherwise (many ties, as in rows
// of a few distinct values) every pass reads the row again. The output is an ordered compaction
// (warp ballots, column order): the elements above the k-th key, then the lowest-column ties of
// it, so the same inputs give the same outputs bit for bit.
#define CAND 4096

__device__ __forceinline__ unsigned key_of(float f) {  // larger float, larger key
  const unsigned u = __float_as_uint(f);
  return u ^ ((u >> 31) ? 0xffffffffu : 0x80000000u);
}
__device__ __forceinline__ float float_of(unsigned key) {
  return __uint_as_float(key ^ ((key >> 31) ? 0x80000000u : 0xffffffffu));
}

struct GlobalRow {
  const float* x;
  long long n;
  __device__ unsigned key(long long i) const { return key_of(__ldg(x + i)); }
  __device__ int column(long long i) const { return (int)i; }
  template <class F>
  __device__ void each_key(F f) const {  // every element once, in any order
    const int tid = threadIdx.x, nt = blockDim.x;
    long long done = 0;
    if ((reinterpret_cast<unsigned long long>(x) & 15) == 0) {
      const float4* v = reinterpret_cast<const float4*>(x);
      for (long long i = tid; i < n / 4; i += nt) {
        const float4 q = __ldcs(v + i);
        f(key_of(q.x)), f(key_of(q.y)), f(key_of(q.z)), f(key_of(q.w));
      }
      done = n / 4 * 4;
    }
    for (long long i = done + tid; i < n; i += nt) f(key(i));
  }
};

struct SharedCandidates {
  const unsigned* keys;
  const int* columns;
  long long n;
  __device__ unsigned key(long long i) const { return keys[i]; }
  __device__ int column(long long i) const { return columns[i]; }
  template <class F>
  __device__ void each_key(F f) const {
    for (long long i = threadIdx.x; i < n; i += blockDim.x) f(keys[i]);
  }
};

struct Select {
  unsigned prefix = 0, mask = 0;  // the k-th key's bits found so far
  int need;                       // how many of the keys matching prefix under mask are still to take
  int at_or_above = 0;            // after a pass: elements matching the old prefix with a bin >= the chosen
};

// One radix pass: histogram the bin (key >> shift) & 255 of the keys that match s.prefix under
// s.mask, then pick the bin of the need-th largest among them.
template <class Src>
__device__ void radix_pass(const Src& src, Select& s, int shift, unsigned* hist, int* shared) {
  for (int b = threadIdx.x; b < 256; b += blockDim.x) hist[b] = 0;
  __syncthreads();
  const unsigned prefix = s.prefix, mask = s.mask;
  src.each_key([&](unsigned key) {
    if ((key & mask) == prefix) atomicAdd(&hist[(key >> shift) & 255], 1u);
  });
  __syncthreads();
  if (threadIdx.x == 0) {
    int above = 0, b = 255;
    for (; b > 0 && above + (int)hist[b] < s.need; --b) above += (int)hist[b];
    shared[0] = b;
    shared[1] = s.need - above;
    shared[2] = above + (int)hist[b];
  }
  __syncthreads();
  s.prefix |= unsigned(shared[0]) << shift;
  s.mask |= 255u << shift;
  s.need = shared[1];
  s.at_or_above = shared[2];
  __syncthreads();
}

// Block-wide exclusive prefix counts of two flags in one pass of warp ballots (16 bits each:
// blockDim.x <= 1024). Returns this thread's offsets; *total gets the block's counts.
__device__ __forceinline__ void ordered_offsets(bool a, bool b, int* warp_counts, int& off_a, int& off_b, int& all_a,
                                                int& all_b) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  const unsigned ba = __ballot_sync(0xffffffffu, a), bb = __ballot_sync(0xffffffffu, b);
  const unsigned below = (1u << lane) - 1u;
  if (lane == 0) warp_counts[warp] = __popc(ba) | (__popc(bb) << 16);
  __syncthreads();
  int before = 0, total = 0;
  for (int w = 0; w < warps; ++w) {
    const int c = warp_counts[w];
    before += w < warp ? c : 0;
    total += c;
  }
  __syncthreads();
  off_a = (before & 0xffff) + __popc(ba & below);
  off_b = (before >> 16) + __popc(bb & below);
  all_a = total & 0xffff;
  all_b = total >> 16;
}

// Writes the elements whose key is above kth, then the first `need` equal to it, in column order.
template <class Src>
__device__ void write_top(const Src& src, unsigned kth, int need, long long k, float* values, int* indices,
                          int* warp_counts) {
  const long long above_total = k - need;
  long long above_base = 0, tie_base = 0;
  for (long long base = 0; base < src.n && (above_base < above_total || tie_base < need); base += blockDim.x) {
    const long long i = base + threadIdx.x;
    const unsigned key = i < src.n ? src.key(i) : 0u;
    const bool above = i < src.n && key > kth, tie = i < src.n && key == kth;
    int oa, ot, na, nt;
    ordered_offsets(above, tie, warp_counts, oa, ot, na, nt);
    long long slot = -1;
    if (above) slot = above_base + oa;
    if (tie && tie_base + ot < need) slot = above_total + tie_base + ot;
    if (slot >= 0) {
      values[slot] = float_of(key);
      indices[slot] = src.column(i);
    }
    above_base += na;
    tie_base += nt;
  }
}

// Copies the elements whose top byte is >= bin into shared memory, in column order.
__device__ void gather(const GlobalRow& row, unsigned bin, unsigned* keys, int* columns, int* warp_counts) {
  long long base_out = 0;
  for (long long base = 0; base < row.n; base += blockDim.x) {
    const long long i = base + threadIdx.x;
    const unsigned key = i < row.n ? row.key(i) : 0u;
    const bool keep = i < row.n && (key >> 24) >= bin;
    int off, unused, n, unused_n;
    ordered_offsets(keep, false, warp_counts, off, unused, n, unused_n);
    if (keep) {
      keys[base_out + off] = key;
      columns[base_out + off] = (int)i;
    }
    base_out += n;
  }
  __syncthreads();
}

extern "C" __global__ void __launch_bounds__(1024) topk_f32(const float* __restrict__ x, float* __restrict__ values,
                                                           int* __restrict__ indices, long long rows, long long cols,
                                                           long long k) {
  __shared__ unsigned hist[256];
  __shared__ int shared[3], warp_counts[32];
  __shared__ unsigned cand_keys[CAND];
  __shared__ int cand_columns[CAND];
  const GlobalRow row{x + (long long)blockIdx.x * cols, cols};
  float* v = values + (long long)blockIdx.x * k;
  int* ix = indices + (long long)blockIdx.x * k;
  Select s;
  s.need = (int)k;
  radix_pass(row, s, 24, hist, shared);
  if (s.at_or_above <= CAND) {
    gather(row, s.prefix >> 24, cand_keys, cand_columns, warp_counts);
    const SharedCandidates cand{cand_keys, cand_columns, s.at_or_above};
    for (int shift = 16; shift >= 0; shift -= 8) radix_pass(cand, s, shift, hist, shared);
    write_top(cand, s.prefix, s.need, k, v, ix, warp_counts);
  } else {
    for (int shift = 16; shift >= 0; shift -= 8) radix_pass(row, s, shift, hist, shared);
    write_top(row, s.prefix, s.need, k, v, ix, warp_counts);
  }
}
