// silu_gate, CPU: f32 arithmetic, one rounding to bf16 (round to nearest even).
#include <cmath>
#include <cstdint>
#include <cstring>

static float from_bf16(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

static uint16_t to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;  // NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}

extern "C" void kwb_silu_gate_bf16(const uint16_t* x, const uint16_t* g, uint16_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float xv = from_bf16(x[i]);
    const float s = xv < -80.0f ? 0.0f : xv / (1.0f + std::exp(-xv));
    y[i] = to_bf16(s * from_bf16(g[i]));
  }
}
