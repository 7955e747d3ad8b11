// A wrong rope kernel (tests/integration/test_decoder_ops.cpp): ignores positions and rotates token t by angle t * inv_freq (right only where positions[t] == t).
#include <cmath>
#include <cstdint>
#include <cstring>

static float widen(uint16_t b) {
  const uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

static uint16_t narrow(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static void rotate(const uint16_t* x, uint16_t* out, int64_t heads, int64_t half_dim, float c, float s, int64_t i) {
  for (int64_t h = 0; h < heads; ++h) {
    const uint16_t* xh = x + h * 2 * half_dim;
    uint16_t* oh = out + h * 2 * half_dim;
    const float a = widen(xh[i]), b = widen(xh[i + half_dim]);
    oh[i] = narrow(a * c - b * s);
    oh[i + half_dim] = narrow(b * c + a * s);
  }
}

extern "C" void kwb_rope_bf16(const uint16_t* q, const uint16_t* k, const int32_t* positions, uint16_t* q_out,
                              uint16_t* k_out, int64_t tokens, int64_t heads, int64_t kv_heads, int64_t half_dim,
                              double theta) {
  (void)theta;
  (void)positions;
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t i = 0; i < half_dim; ++i) {
      const float angle = float(t) * std::pow(float(theta), -float(i) / float(half_dim));
      const float c = std::cos(angle), s = std::sin(angle);
      rotate(q + t * heads * 2 * half_dim, q_out + t * heads * 2 * half_dim, heads, half_dim, c, s, i);
      rotate(k + t * kv_heads * 2 * half_dim, k_out + t * kv_heads * 2 * half_dim, kv_heads, half_dim, c, s, i);
    }
}
