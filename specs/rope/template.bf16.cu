// kwb:launch kwb_rope_bf16 grid=(max(1, min(65535, ceil_div(tokens * (heads + kv_heads) * half_dim, 256)))) block=(256) args=(q, k, positions, q_out, k_out, tokens, heads, kv_heads, half_dim, theta)
// rope bf16, cuda: a simple correct kernel (a template to start from: GET /v1/specs/rope). A
// grid-stride loop over the rotated pairs of q's and k's heads, rotate-half convention, in f32 as
// the cpu template: inv_freq = powf(theta, -i / half_dim), angle = position * inv_freq, sincosf,
// one bf16 rounding per output.
#include <cuda_bf16.h>

extern "C" __global__ void kwb_rope_bf16(const __nv_bfloat16* q, const __nv_bfloat16* k, const int* positions,
                                         __nv_bfloat16* q_out, __nv_bfloat16* k_out, long long tokens, long long heads,
                                         long long kv_heads, long long half_dim, double theta) {
  const long long per_token = (heads + kv_heads) * half_dim;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < tokens * per_token;
       e += (long long)gridDim.x * blockDim.x) {
    const long long t = e / per_token, h = (e % per_token) / half_dim, i = e % half_dim;
    const bool is_q = h < heads;
    const long long row = is_q ? (t * heads + h) * 2 * half_dim : (t * kv_heads + (h - heads)) * 2 * half_dim;
    const __nv_bfloat16* x = is_q ? q : k;
    __nv_bfloat16* out = is_q ? q_out : k_out;
    const float inv_freq = powf((float)theta, -(float)i / (float)half_dim);
    float s, c;
    sincosf((float)positions[t] * inv_freq, &s, &c);
    const float a = __bfloat162float(x[row + i]), b = __bfloat162float(x[row + i + half_dim]);
    out[row + i] = __float2bfloat16_rn(a * c - b * s);
    out[row + i + half_dim] = __float2bfloat16_rn(b * c + a * s);
  }
}
