// kwb:launch attention_flash grid=(q_heads, ceil_div(seq, 64), batch) block=(128) smem=87040 args=(q, k, v, o, batch, seq, q_heads, kv_heads, head_dim, scale)
// Causal grouped-query attention forward, flash-attention 2 style, on the tensor cores: PTX
// mma.sync m16n8k16 bf16 with f32 accumulators, fragments loaded by ldmatrix.
// A block of 4 warps takes 64 queries of one (batch, q head), each warp 16 of them; it reads the
// kv head h / (q_heads / kv_heads) (grouped-query attention: the q heads of a group are adjacent
// blocks of the grid's x, so they stream the same K and V tiles through L2 at about the same time).
// Keys come in tiles of 64 through a 2-stage cp.async pipeline (tile t + 1 is copied while tile t
// is multiplied) in dynamic shared memory whose rows are padded by 8 elements (16 bytes) so every
// ldmatrix phase hits each bank once. Per key tile, per warp:
//   S = Q K^T (16 x 64; Q's fragments stay in registers for the whole block);
//   causal block skipping: only key tiles 0 .. the diagonal one are visited, and only the
//   diagonal tile is masked (key > query: -inf);
//   online softmax in f32, base 2 (scale * log2(e) folded into one multiply): the row max across
//   the 4 lanes of a quad, the accumulator and row sum rescaled by 2^(m_old - m_new);
//   O += P V with P rounded to bf16 straight from the S accumulators (their layout is the A
//   fragment's), V's fragments by ldmatrix.trans.
// o = O / rowsum, rounded to bf16, stored as pairs. Heavy query tiles (near the end of the
// sequence) are scheduled first. head_dim 64 and 128 take this path; any other head_dim (the
// spec allows 1..256) takes a plain path: one warp per query row, f32 online softmax.
// scale 0 means 1 / sqrt(head_dim). (wgmma with TMA, as flash-attention 3, would be faster still
// on Hopper: see docs/cuda.md.)
#include <cuda_bf16.h>

#define BM 64          // queries per block (4 warps x 16)
#define BN 64          // keys per tile
#define MAX_CHUNKS 8   // the plain path: head_dim <= 32 * MAX_CHUNKS
// smem= above: (1 Q tile + 2 stages x (K + V)) x 64 rows x (128 + 8) bf16 = 87040 bytes (head_dim 128)

namespace {

__device__ __forceinline__ void cp_async16(void* dst, const void* src, bool full) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  const int bytes = full ? 16 : 0;  // 0: the 16 bytes are zero-filled, nothing is read
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* p) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void* p) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}
// d += a (16x16, row) * b (16x8, col): the fragment layouts of PTX's mma.m16n8k16.
__device__ __forceinline__ void mma_bf16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ unsigned pack_bf16(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);  // .x (the low half) = lo
  return *reinterpret_cast<const unsigned*>(&v);
}
__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }

// Rows [r0, r0 + 64) of one head of a [batch, seq, heads, D] tensor into a padded tile (row
// stride D + 8); rows at or past seq are zero-filled. D / 8 16-byte chunks per row.
template <int D>
__device__ __forceinline__ void load_tile(__nv_bfloat16* tile, const __nv_bfloat16* __restrict__ base, long long seq,
                                          long long heads, long long r0, int t) {
  constexpr int LD = D + 8, CHUNKS = D / 8;
#pragma unroll
  for (int u = 0; u < BM * CHUNKS / 128; ++u) {
    const int c = t + 128 * u, r = c / CHUNKS, col = (c % CHUNKS) * 8;
    const bool in = r0 + r < seq;
    cp_async16(tile + r * LD + col, in ? base + ((r0 + r) * heads) * D + col : base, in);
  }
}

// The tensor-core path for head_dim D (64 or 128): 64 queries [i0, i0 + 64) of q head h.
template <int D>
__device__ void flash_block(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                            const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o, long long seq,
                            long long q_heads, long long kv_heads, long long b, long long h, long long g,
                            long long i0, float scale_log2) {
  constexpr int LD = D + 8, TILE = BM * LD, DT = D / 8, KS = D / 16;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __nv_bfloat16* Qs = reinterpret_cast<__nv_bfloat16*>(smem_raw);
  __nv_bfloat16* Ks = Qs + TILE;      // 2 stages
  __nv_bfloat16* Vs = Ks + 2 * TILE;  // 2 stages
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const __nv_bfloat16* qb = q + (b * seq * q_heads + h) * D;   // row r: qb + r * q_heads * D
  const __nv_bfloat16* kb = k + (b * seq * kv_heads + g) * D;
  const __nv_bfloat16* vb = v + (b * seq * kv_heads + g) * D;
  const long long tiles = i0 / BN + 1;  // key tiles 0 .. the diagonal one (BM == BN)

  load_tile<D>(Qs, qb, seq, q_heads, i0, t);
  load_tile<D>(Ks, kb, seq, kv_heads, 0, t);
  load_tile<D>(Vs, vb, seq, kv_heads, 0, t);
  cp_async_commit();

  unsigned qf[KS][4];
  float acc[DT][4];
#pragma unroll
  for (int n = 0; n < DT; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) acc[n][e] = 0.f;
  float m[2] = {neg_inf(), neg_inf()}, l[2] = {0.f, 0.f};  // rows lane / 4 and lane / 4 + 8 of the warp
  const long long row0 = i0 + warp * 16 + lane / 4;        // this lane's first query row

  for (long long kt = 0; kt < tiles; ++kt) {
    if (kt + 1 < tiles) {
      const int st = int((kt + 1) & 1);
      load_tile<D>(Ks + st * TILE, kb, seq, kv_heads, (kt + 1) * BN, t);
      load_tile<D>(Vs + st * TILE, vb, seq, kv_heads, (kt + 1) * BN, t);
    }
    cp_async_commit();  // an empty group on the last tile keeps the wait count uniform
    cp_async_wait<1>();  // tile kt (and Q) have landed (this thread's copies) ...
    __syncthreads();     // ... everyone's
    if (kt == 0) {
#pragma unroll
      for (int kk = 0; kk < KS; ++kk)
        ldmatrix_x4(qf[kk], Qs + (warp * 16 + lane % 16) * LD + kk * 16 + (lane / 16) * 8);
    }
    const __nv_bfloat16* Kt = Ks + int(kt & 1) * TILE;
    const __nv_bfloat16* Vt = Vs + int(kt & 1) * TILE;

    float s[BN / 8][4];  // S: 16 queries x 64 keys, 8 n8 tiles
#pragma unroll
    for (int n = 0; n < BN / 8; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) s[n][e] = 0.f;
#pragma unroll
    for (int kk = 0; kk < KS; ++kk)
#pragma unroll
      for (int np = 0; np < BN / 16; ++np) {  // keys 16 np .. 16 np + 15: two n8 tiles
        unsigned kf[4];
        ldmatrix_x4(kf, Kt + (np * 16 + lane % 8 + (lane / 16) * 8) * LD + kk * 16 + ((lane / 8) % 2) * 8);
        mma_bf16(s[2 * np], qf[kk], kf[0], kf[1]);
        mma_bf16(s[2 * np + 1], qf[kk], kf[2], kf[3]);
      }

    const bool diagonal = kt == tiles - 1;
#pragma unroll
    for (int half = 0; half < 2; ++half) {  // rows row0 and row0 + 8: elements 0, 1 and 2, 3
      const long long i = row0 + half * 8;
      float mx = m[half];
#pragma unroll
      for (int n = 0; n < BN / 8; ++n)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float x = s[n][half * 2 + e] * scale_log2;
          const long long j = kt * BN + n * 8 + (lane % 4) * 2 + e;
          if (diagonal && j > i) x = neg_inf();  // causal (keys past seq are past every row too)
          s[n][half * 2 + e] = x;
          mx = fmaxf(mx, x);
        }
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float alpha = exp2f(m[half] - mx);  // 0 on the first tile (m = -inf; mx is finite: key 0 <= i)
      m[half] = mx;
      float sum = 0.f;
#pragma unroll
      for (int n = 0; n < BN / 8; ++n)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float p = exp2f(s[n][half * 2 + e] - mx);
          s[n][half * 2 + e] = p;
          sum += p;
        }
      l[half] = l[half] * alpha + sum;  // this lane's share; the quad's shares are added at the end
#pragma unroll
      for (int n = 0; n < DT; ++n) {
        acc[n][half * 2] *= alpha;
        acc[n][half * 2 + 1] *= alpha;
      }
    }

#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {  // keys 16 kk .. 16 kk + 15
      unsigned pf[4];
      pf[0] = pack_bf16(s[2 * kk][0], s[2 * kk][1]);          // row g,     keys 0-7
      pf[1] = pack_bf16(s[2 * kk][2], s[2 * kk][3]);          // row g + 8, keys 0-7
      pf[2] = pack_bf16(s[2 * kk + 1][0], s[2 * kk + 1][1]);  // row g,     keys 8-15
      pf[3] = pack_bf16(s[2 * kk + 1][2], s[2 * kk + 1][3]);  // row g + 8, keys 8-15
#pragma unroll
      for (int np = 0; np < DT / 2; ++np) {  // columns 16 np .. 16 np + 15 of V: two n8 tiles
        unsigned vf[4];
        ldmatrix_x4_trans(vf, Vt + (kk * 16 + lane % 16) * LD + np * 16 + (lane / 16) * 8);
        mma_bf16(acc[2 * np], pf, vf[0], vf[1]);
        mma_bf16(acc[2 * np + 1], pf, vf[2], vf[3]);
      }
    }
    __syncthreads();  // the stage refilled next is no longer read
  }
  cp_async_wait<0>();  // only empty groups remain; nothing is left in flight at exit

#pragma unroll
  for (int half = 0; half < 2; ++half) {
    float sum = l[half];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    const float inv = 1.f / sum;
    const long long i = row0 + half * 8;
    if (i >= seq) continue;
    __nv_bfloat16* orow = o + ((b * seq + i) * q_heads + h) * D;
#pragma unroll
    for (int n = 0; n < DT; ++n)
      *reinterpret_cast<__nv_bfloat162*>(orow + n * 8 + (lane % 4) * 2) =
          __floats2bfloat162_rn(acc[n][half * 2] * inv, acc[n][half * 2 + 1] * inv);
  }
}

// The plain path for any other head_dim (<= 256): one warp per query row, rows i0 .. i0 + 63.
__device__ void plain_block(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                            const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o, long long seq,
                            long long q_heads, long long kv_heads, long long d, long long b, long long h,
                            long long g, long long i0, float scale) {
  const int lane = threadIdx.x % 32;
  for (long long i = i0 + threadIdx.x / 32; i < i0 + BM && i < seq; i += blockDim.x / 32) {
    const __nv_bfloat16* qr = q + ((b * seq + i) * q_heads + h) * d;
    float qv[MAX_CHUNKS], acc[MAX_CHUNKS];
#pragma unroll
    for (int u = 0; u < MAX_CHUNKS; ++u) {
      const long long c = lane + 32 * u;
      qv[u] = c < d ? __bfloat162float(qr[c]) : 0.f;
      acc[u] = 0.f;
    }
    float m = neg_inf(), l = 0.f;
    for (long long j = 0; j <= i; ++j) {
      const __nv_bfloat16* kr = k + ((b * seq + j) * kv_heads + g) * d;
      const __nv_bfloat16* vr = v + ((b * seq + j) * kv_heads + g) * d;
      float dot = 0.f;
#pragma unroll
      for (int u = 0; u < MAX_CHUNKS; ++u) {
        const long long c = lane + 32 * u;
        if (c < d) dot += qv[u] * __bfloat162float(kr[c]);
      }
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
      const float sc = dot * scale, m_new = fmaxf(m, sc);
      const float alpha = __expf(m - m_new), p = __expf(sc - m_new);
      m = m_new;
      l = l * alpha + p;
#pragma unroll
      for (int u = 0; u < MAX_CHUNKS; ++u) {
        const long long c = lane + 32 * u;
        if (c < d) acc[u] = acc[u] * alpha + p * __bfloat162float(vr[c]);
      }
    }
    __nv_bfloat16* orow = o + ((b * seq + i) * q_heads + h) * d;
#pragma unroll
    for (int u = 0; u < MAX_CHUNKS; ++u) {
      const long long c = lane + 32 * u;
      if (c < d) orow[c] = __float2bfloat16(acc[u] / l);
    }
  }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(128) attention_flash(
    const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k, const __nv_bfloat16* __restrict__ v,
    __nv_bfloat16* __restrict__ o, long long batch, long long seq, long long q_heads, long long kv_heads,
    long long head_dim, double scale) {
  const long long h = blockIdx.x, b = blockIdx.z;
  const long long i0 = (long long)(gridDim.y - 1 - blockIdx.y) * BM;  // the longest rows first
  if (b >= batch || i0 >= seq) return;
  const long long g = h / (q_heads / kv_heads);
  const double sc = scale == 0.0 ? 1.0 / sqrt(double(head_dim)) : scale;
  const float log2e = 1.4426950408889634f;
  if (head_dim == 128)
    flash_block<128>(q, k, v, o, seq, q_heads, kv_heads, b, h, g, i0, float(sc) * log2e);
  else if (head_dim == 64)
    flash_block<64>(q, k, v, o, seq, q_heads, kv_heads, b, h, g, i0, float(sc) * log2e);
  else
    plain_block(q, k, v, o, seq, q_heads, kv_heads, head_dim, b, h, g, i0, float(sc));
}
