// The GPU reference of attention (docs/specs.md "GPU references"): causal grouped-query
// attention in double, one warp per (batch, query, q head) row, written as double. Lane l holds
// the columns l, l + 32, ... of the query row and of the output accumulator (head_dim <= 256:
// the spec's range); each key's score is the warp's sum of its lanes' partial dot products in
// double (every bf16 product is exact), then an online softmax in double: the running max m, the
// row sum l and the accumulator rescaled by exp(m_old - m_new) when the max grows. Its error
// against reference.cpp (the exact softmax, two passes) is ~1e-15 relative; the workbench checks
// the two agree on every test workload before this kernel judges a bench workload.
// scale 0 means 1 / sqrt(head_dim); q head h reads kv head h / (q_heads / kv_heads).
#define ROWS_PER_BLOCK 8  // warps per block of 256 threads: grid=(ceil_div(seq, 8), q_heads, batch)
#define MAX_CHUNKS 8      // head_dim <= 32 * MAX_CHUNKS

__device__ double widen(unsigned short bits) { return double(__uint_as_float(unsigned(bits) << 16)); }

extern "C" __global__ void attention_reference_bf16(const unsigned short* q, const unsigned short* k,
                                                    const unsigned short* v, double* o, long long batch,
                                                    long long seq, long long q_heads, long long kv_heads,
                                                    long long head_dim, double scale) {
  const int lane = threadIdx.x % 32;
  const long long i = (long long)blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
  const long long h = blockIdx.y, b = blockIdx.z;
  if (i >= seq || b >= batch) return;
  double* orow = o + ((b * seq + i) * q_heads + h) * head_dim;
  if (head_dim > 32 * MAX_CHUNKS || q_heads % kv_heads != 0) {  // outside the spec: left NaN-poisoned
    return;
  }
  const long long g = h / (q_heads / kv_heads);
  const double sc = scale == 0.0 ? 1.0 / sqrt(double(head_dim)) : scale;
  const unsigned short* qr = q + ((b * seq + i) * q_heads + h) * head_dim;
  double qv[MAX_CHUNKS], acc[MAX_CHUNKS];
#pragma unroll
  for (int u = 0; u < MAX_CHUNKS; ++u) {
    const long long c = lane + 32 * u;
    qv[u] = c < head_dim ? widen(qr[c]) : 0.0;
    acc[u] = 0.0;
  }
  double m = -__longlong_as_double(0x7ff0000000000000LL), l = 0.0;  // -inf: NVRTC has no INFINITY
  for (long long j = 0; j <= i; ++j) {
    const unsigned short* kr = k + ((b * seq + j) * kv_heads + g) * head_dim;
    const unsigned short* vr = v + ((b * seq + j) * kv_heads + g) * head_dim;
    double dot = 0.0;
#pragma unroll
    for (int u = 0; u < MAX_CHUNKS; ++u) {
      const long long c = lane + 32 * u;
      if (c < head_dim) dot += qv[u] * widen(kr[c]);
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
    const double s = sc * dot;  // the same value in every lane
    double alpha = 1.0, p;
    if (s > m) {
      alpha = exp(m - s);  // 0 for the first key
      m = s;
      p = 1.0;
    } else {
      p = exp(s - m);
    }
    l = l * alpha + p;
#pragma unroll
    for (int u = 0; u < MAX_CHUNKS; ++u) {
      const long long c = lane + 32 * u;
      if (c < head_dim) acc[u] = acc[u] * alpha + p * widen(vr[c]);
    }
  }
#pragma unroll
  for (int u = 0; u < MAX_CHUNKS; ++u) {
    const long long c = lane + 32 * u;
    if (c < head_dim) orow[c] = acc[u] / l;
  }
}
