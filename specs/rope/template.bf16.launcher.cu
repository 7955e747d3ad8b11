// rope bf16, cuda-launcher: a simple correct launcher (a template to start from:
// GET /v1/specs/rope). The host entry launches one kernel on the given stream and returns; the
// workbench synchronises and times that stream. The kernel is the cuda template's: a grid-stride
// loop over the rotated pairs of q's and k's heads, rotate-half convention, in f32 (powf,
// sincosf), one bf16 rounding per output.
#include <algorithm>
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {
__global__ void rope_pairs(const __nv_bfloat16* q, const __nv_bfloat16* k, const int32_t* positions,
                           __nv_bfloat16* q_out, __nv_bfloat16* k_out, int64_t tokens, int64_t heads, int64_t kv_heads,
                           int64_t half_dim, float theta) {
  const int64_t per_token = (heads + kv_heads) * half_dim;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < tokens * per_token;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t t = e / per_token, h = (e % per_token) / half_dim, i = e % half_dim;
    const bool is_q = h < heads;
    const int64_t row = is_q ? (t * heads + h) * 2 * half_dim : (t * kv_heads + (h - heads)) * 2 * half_dim;
    const __nv_bfloat16* x = is_q ? q : k;
    __nv_bfloat16* out = is_q ? q_out : k_out;
    const float inv_freq = powf(theta, -float(i) / float(half_dim));
    float s, c;
    sincosf(float(positions[t]) * inv_freq, &s, &c);
    const float a = __bfloat162float(x[row + i]), b = __bfloat162float(x[row + i + half_dim]);
    out[row + i] = __float2bfloat16_rn(a * c - b * s);
    out[row + i + half_dim] = __float2bfloat16_rn(b * c + a * s);
  }
}
}  // namespace

extern "C" void kwb_rope_bf16(const __nv_bfloat16* q, const __nv_bfloat16* k, const int32_t* positions,
                              __nv_bfloat16* q_out, __nv_bfloat16* k_out, int64_t tokens, int64_t heads, int64_t kv_heads,
                              int64_t half_dim, double theta, cudaStream_t stream) {
  const int64_t pairs = tokens * (heads + kv_heads) * half_dim;
  if (pairs <= 0) return;  // no element to write
  const int64_t blocks = std::min<int64_t>(65535, (pairs + 255) / 256);
  rope_pairs<<<unsigned(blocks), 256, 0, stream>>>(q, k, positions, q_out, k_out, tokens, heads, kv_heads, half_dim,
                                                   float(theta));
}
