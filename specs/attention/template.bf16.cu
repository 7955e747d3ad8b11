// kwb:launch kwb_attention_bf16 grid=(ceil_div(seq, 8), q_heads, batch) block=(256) args=(q, k, v, o, batch, seq, q_heads, kv_heads, head_dim, scale)
// attention bf16, cuda: a simple correct kernel (a template to start from: GET /v1/specs/attention).
// One warp per (batch, query, q head) row, 8 rows per block: lane l holds the columns l, l + 32,
// ... of the query and of the f32 output accumulator (head_dim <= 256, the spec's range). For each
// key j <= i (causal) of kv head g = h / (q_heads / kv_heads): the score is the warp's sum of the
// lanes' f32 partial dot products, then an online softmax in f32 (the running max, the row sum
// and the accumulator rescaled when the max grows); o = acc / sum, rounded to bf16.
// scale 0 means 1 / sqrt(head_dim). Tensor cores (mma, tiles of queries and keys in shared
// memory) are the way to a fast kernel: kernels/attention/cuda/flash_mma.cu.
#include <cuda_bf16.h>

#define MAX_CHUNKS 8  // head_dim <= 32 * MAX_CHUNKS

extern "C" __global__ void kwb_attention_bf16(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                                              __nv_bfloat16* o, long long batch, long long seq, long long q_heads,
                                              long long kv_heads, long long head_dim, double scale) {
  const int lane = threadIdx.x % 32;
  const long long i = (long long)blockIdx.x * 8 + threadIdx.x / 32, h = blockIdx.y, b = blockIdx.z;
  if (i >= seq || b >= batch) return;
  const long long g = h / (q_heads / kv_heads);
  const float sc = scale == 0.0 ? rsqrtf(float(head_dim)) : float(scale);
  const __nv_bfloat16* qr = q + ((b * seq + i) * q_heads + h) * head_dim;
  float qv[MAX_CHUNKS], acc[MAX_CHUNKS];
#pragma unroll
  for (int u = 0; u < MAX_CHUNKS; ++u) {
    const long long c = lane + 32 * u;
    qv[u] = c < head_dim ? __bfloat162float(qr[c]) : 0.0f;
    acc[u] = 0.0f;
  }
  float m = __int_as_float(0xff800000), l = 0.0f;  // -inf: NVRTC has no INFINITY
  for (long long j = 0; j <= i; ++j) {
    const __nv_bfloat16* kr = k + ((b * seq + j) * kv_heads + g) * head_dim;
    const __nv_bfloat16* vr = v + ((b * seq + j) * kv_heads + g) * head_dim;
    float dot = 0.0f;
#pragma unroll
    for (int u = 0; u < MAX_CHUNKS; ++u) {
      const long long c = lane + 32 * u;
      if (c < head_dim) dot += qv[u] * __bfloat162float(kr[c]);
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
    const float s = sc * dot;  // the same in every lane
    const float m_new = fmaxf(m, s);
    const float alpha = __expf(m - m_new), p = __expf(s - m_new);  // alpha 0 for the first key
    m = m_new;
    l = l * alpha + p;
#pragma unroll
    for (int u = 0; u < MAX_CHUNKS; ++u) {
      const long long c = lane + 32 * u;
      if (c < head_dim) acc[u] = acc[u] * alpha + p * __bfloat162float(vr[c]);
    }
  }
  __nv_bfloat16* orow = o + ((b * seq + i) * q_heads + h) * head_dim;
#pragma unroll
  for (int u = 0; u < MAX_CHUNKS; ++u) {
    const long long c = lane + 32 * u;
    if (c < head_dim) orow[c] = __float2bfloat16(acc[u] / l);
  }
}
