// silu_mul bf16, CPU: per token, its gate and up halves in blocks of 512 through six loops that
// each keep to one element type, so the compiler maps every one onto SIMD registers without
// -ffast-math (a bf16 -> f32 bit pattern read as a float inside one loop, or std::exp, which sets
// errno, keep a loop scalar): widen gate and up, e^-g by Cephes' expf (range reduction by ln 2 in
// two parts, rounded with the 1.5 * 2^23 trick, a degree-6 polynomial: ~2 f32 ulp) with its power
// of two built as exponent bits, silu(g) * up = g / (1 + e^-g) * up in f32, then one rounding to
// bf16 (nearest even). e^-g is clamped at e^88 (g < -88: silu ~ 1e-37, zero at bf16's resolution).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

constexpr int64_t kBlock = 512;

void silu_row(const uint16_t* __restrict gate, const uint16_t* __restrict up, uint16_t* __restrict out, int64_t n) {
  uint32_t bits[kBlock];
  float g[kBlock], u[kBlock], poly[kBlock], pow2[kBlock], scale[kBlock], r[kBlock];
  for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
    const int64_t m = std::min(kBlock, n - i0);
    for (int64_t k = 0; k < m; ++k) bits[k] = uint32_t(gate[i0 + k]) << 16;
    std::memcpy(g, bits, size_t(m) * 4);
    for (int64_t k = 0; k < m; ++k) bits[k] = uint32_t(up[i0 + k]) << 16;
    std::memcpy(u, bits, size_t(m) * 4);
    for (int64_t k = 0; k < m; ++k) {  // e^-g = poly * 2^pow2
      float x = -g[k];
      x = x > 88.0f ? 88.0f : x;
      x = x < -87.0f ? -87.0f : x;
      const float nf = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round to nearest
      const float t = (x - nf * 0.693359375f) - nf * -2.12194440e-4f;
      float p = 1.9875691500e-4f;
      p = p * t + 1.3981999507e-3f;
      p = p * t + 8.3334519073e-3f;
      p = p * t + 4.1665795894e-2f;
      p = p * t + 1.6666665459e-1f;
      p = p * t + 5.0000001201e-1f;
      poly[k] = p * t * t + t + 1.0f;
      pow2[k] = nf;
    }
    for (int64_t k = 0; k < m; ++k) bits[k] = uint32_t(int32_t(pow2[k]) + 127) << 23;
    std::memcpy(scale, bits, size_t(m) * 4);
    for (int64_t k = 0; k < m; ++k) r[k] = g[k] / (1.0f + poly[k] * scale[k]) * u[k];
    std::memcpy(bits, r, size_t(m) * 4);
    for (int64_t k = 0; k < m; ++k) {  // nearest even; a NaN stays a quiet NaN
      const uint32_t v = bits[k];
      const uint32_t rounded = (v + 0x7fffu + ((v >> 16) & 1u)) >> 16;
      out[i0 + k] = uint16_t((v & 0x7fffffffu) > 0x7f800000u ? ((v >> 16) | 0x40u) : rounded);
    }
  }
}

}  // namespace

extern "C" void kwb_silu_mul_bf16(const uint16_t* x, uint16_t* out, int64_t tokens, int64_t d) {
  for (int64_t t = 0; t < tokens; ++t) silu_row(x + t * 2 * d, x + t * 2 * d + d, out + t * d, d);
}
