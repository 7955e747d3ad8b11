// A wrong silu_mul kernel (tests/integration/test_decoder_ops.cpp): gate and up read interleaved (gate = x[t, 2i], up = x[t, 2i + 1]) instead of as two halves.
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

extern "C" void kwb_silu_mul_bf16(const uint16_t* x, uint16_t* out, int64_t tokens, int64_t d) {
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t i = 0; i < d; ++i) {
      const float g = widen(x[t * 2 * d + 2 * i]), u = widen(x[t * 2 * d + 2 * i + 1]);
      out[t * d + i] = narrow(g / (1.0f + std::exp(-g)) * u);
    }
}
