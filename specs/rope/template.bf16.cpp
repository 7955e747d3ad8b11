// rope bf16, cpu: the simplest correct kernel (a template to start from: GET /v1/specs/rope).
// Rotate-half convention, in f32 as a model's code computes it: inv_freq = theta^(-i / half_dim)
// by powf, the angle positions[t] * inv_freq rounded to f32, cosf and sinf, then one bf16
// rounding per output. A same-precision kernel: `kwb spec check` runs it to measure the
// tolerance's headroom (docs/specs.md "Checking a spec", check 11).
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

float widen(uint16_t bits) {  // bf16 is the top half of an f32
  const uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

uint16_t narrow(float f) {  // round to nearest even; NaN stays a quiet NaN
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if (std::isnan(f)) return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

void rotate(const uint16_t* x, uint16_t* out, int64_t heads, int64_t half, float c, float s, int64_t i) {
  for (int64_t h = 0; h < heads; ++h) {
    const float a = widen(x[h * 2 * half + i]), b = widen(x[h * 2 * half + i + half]);
    out[h * 2 * half + i] = narrow(a * c - b * s);
    out[h * 2 * half + i + half] = narrow(b * c + a * s);
  }
}

}  // namespace

extern "C" void kwb_rope_bf16(const uint16_t* q, const uint16_t* k, const int32_t* positions, uint16_t* q_out,
                              uint16_t* k_out, int64_t tokens, int64_t heads, int64_t kv_heads, int64_t half_dim,
                              double theta) {
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t i = 0; i < half_dim; ++i) {
      const float inv_freq = std::pow(float(theta), -float(i) / float(half_dim));
      const float angle = float(positions[t]) * inv_freq;
      const float c = std::cos(angle), s = std::sin(angle);
      rotate(q + t * heads * 2 * half_dim, q_out + t * heads * 2 * half_dim, heads, half_dim, c, s, i);
      rotate(k + t * kv_heads * 2 * half_dim, k_out + t * kv_heads * 2 * half_dim, kv_heads, half_dim, c, s, i);
    }
}
