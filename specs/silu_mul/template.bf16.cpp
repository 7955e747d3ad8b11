// silu_mul bf16, cpu: the simplest correct kernel (a template to start from:
// GET /v1/specs/silu_mul). out[t, i] = silu(gate) * up with gate = x[t, i], up = x[t, d + i], in
// f32, rounded once to bf16 (nearest even). A same-precision kernel: `kwb spec check` runs it to
// measure the tolerance's headroom (docs/specs.md "Checking a spec", check 11).
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

}  // namespace

extern "C" void kwb_silu_mul_bf16(const uint16_t* x, uint16_t* out, int64_t tokens, int64_t d) {
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t i = 0; i < d; ++i) {
      const float g = widen(x[t * 2 * d + i]), u = widen(x[t * 2 * d + d + i]);
      out[t * d + i] = narrow(g / (1.0f + std::exp(-g)) * u);
    }
}
