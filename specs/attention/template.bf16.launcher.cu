// attention bf16, cuda-launcher: a simple correct launcher (a template to start from:
// GET /v1/specs/attention). The host entry launches one kernel on the given stream and returns;
// the workbench synchronises and times that stream. The kernel is the cuda template's: one warp
// per (batch, query, q head) row, 8 rows per block of 256 threads, lanes over head_dim (<= 256),
// f32 dot products summed across the warp, an online softmax in f32 over the keys j <= i of kv
// head h / (q_heads / kv_heads), o rounded to bf16. scale 0 means 1 / sqrt(head_dim).
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {
constexpr int k_rows_per_block = 8;  // warps of the 256-thread block
constexpr int k_max_chunks = 8;      // head_dim <= 32 * k_max_chunks

__global__ void attention_rows(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                               __nv_bfloat16* o, int64_t seq, int64_t q_heads, int64_t kv_heads, int64_t head_dim,
                               float sc) {
  const int lane = threadIdx.x % 32;
  const int64_t i = int64_t(blockIdx.x) * k_rows_per_block + threadIdx.x / 32, h = blockIdx.y, b = blockIdx.z;
  if (i >= seq) return;
  const int64_t g = h / (q_heads / kv_heads);
  const __nv_bfloat16* qr = q + ((b * seq + i) * q_heads + h) * head_dim;
  float qv[k_max_chunks], acc[k_max_chunks];
#pragma unroll
  for (int u = 0; u < k_max_chunks; ++u) {
    const int64_t c = lane + 32 * u;
    qv[u] = c < head_dim ? __bfloat162float(qr[c]) : 0.0f;
    acc[u] = 0.0f;
  }
  float m = -INFINITY, l = 0.0f;
  for (int64_t j = 0; j <= i; ++j) {
    const __nv_bfloat16* kr = k + ((b * seq + j) * kv_heads + g) * head_dim;
    const __nv_bfloat16* vr = v + ((b * seq + j) * kv_heads + g) * head_dim;
    float dot = 0.0f;
#pragma unroll
    for (int u = 0; u < k_max_chunks; ++u) {
      const int64_t c = lane + 32 * u;
      if (c < head_dim) dot += qv[u] * __bfloat162float(kr[c]);
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
    const float s = sc * dot;
    const float m_new = fmaxf(m, s);
    const float alpha = __expf(m - m_new), p = __expf(s - m_new);
    m = m_new;
    l = l * alpha + p;
#pragma unroll
    for (int u = 0; u < k_max_chunks; ++u) {
      const int64_t c = lane + 32 * u;
      if (c < head_dim) acc[u] = acc[u] * alpha + p * __bfloat162float(vr[c]);
    }
  }
  __nv_bfloat16* orow = o + ((b * seq + i) * q_heads + h) * head_dim;
#pragma unroll
  for (int u = 0; u < k_max_chunks; ++u) {
    const int64_t c = lane + 32 * u;
    if (c < head_dim) orow[c] = __float2bfloat16(acc[u] / l);
  }
}
}  // namespace

extern "C" void kwb_attention_bf16(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                                   __nv_bfloat16* o, int64_t batch, int64_t seq, int64_t q_heads, int64_t kv_heads,
                                   int64_t head_dim, double scale, cudaStream_t stream) {
  if (batch <= 0 || seq <= 0 || q_heads <= 0 || head_dim <= 0) return;  // no element of o
  const float sc = scale == 0.0 ? float(1.0 / __builtin_sqrt(double(head_dim))) : float(scale);
  const dim3 grid(unsigned((seq + k_rows_per_block - 1) / k_rows_per_block), unsigned(q_heads), unsigned(batch));
  attention_rows<<<grid, 32 * k_rows_per_block, 0, stream>>>(q, k, v, o, seq, q_heads, kv_heads, head_dim, sc);
}
