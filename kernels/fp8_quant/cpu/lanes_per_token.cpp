// fp8_quant bf16_per_token, CPU: two passes per row (it stays in L1 for the second): the largest |x| as an
// integer max over the bf16 bits in 32 lanes, then q = e4m3(x * (448 / a)) with a branch-free
// f32 -> e4m3 rounding (nearest even, saturating) that vectorises. The f32 steps are the ones
// spec.json defines, so q matches bit for bit.
#include <algorithm>
#include <bit>
#include <cstdint>

namespace {

inline float widen(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

// The largest |x| of n bf16 values: bf16 magnitudes order like their bits with the sign cleared,
// so an integer max over 32 lanes (no NaN in the inputs of this op's spec).
inline float amax_of(const uint16_t* __restrict x, int64_t n) {
  uint16_t m[32] = {};
  int64_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int l = 0; l < 32; ++l) {
      const uint16_t v = x[i + l] & 0x7fff;
      m[l] = v > m[l] ? v : m[l];
    }
  for (int l = 0; i + l < n; ++l) {
    const uint16_t v = x[i + l] & 0x7fff;
    m[l] = v > m[l] ? v : m[l];
  }
  uint16_t out = 0;
  for (int l = 0; l < 32; ++l) out = m[l] > out ? m[l] : out;
  return widen(out);
}

// f32 -> e4m3 without branches (the loop over a group vectorises): round to nearest even on the
// f32 bits, subnormals (below 2^-6) through the 2^23 rounding trick, saturation at 448, NaN 0x7f.
inline uint8_t to_e4m3(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f), a = u & 0x7fffffffu;
  const uint32_t sign = (u >> 24) & 0x80u;
  const uint32_t normal = ((a + 0x7ffffu + ((a >> 20) & 1u)) >> 20) - (120u << 3);
  const float scaled = std::bit_cast<float>(a) * 512.0f + 8388608.0f;  // 2^23 + round(|f| * 2^9)
  const uint32_t subnormal = std::bit_cast<uint32_t>(scaled) - 0x4b000000u;
  uint32_t m = a < 0x3c800000u ? subnormal : normal;
  m = a >= 0x43e00000u ? 0x7eu : m;  // >= 448
  m = a > 0x7f800000u ? 0x7fu : m;   // NaN
  return uint8_t(sign | m);
}

// One group: q = e4m3(x * (448 / a)), a = max(amax, 1e-4); returns the scale a / 448.
inline float quantise(const uint16_t* __restrict x, uint8_t* __restrict q, int64_t n) {
  const float a = std::max(amax_of(x, n), 1e-4f), inv = 448.0f / a;
  for (int64_t i = 0; i < n; ++i) q[i] = to_e4m3(widen(x[i]) * inv);
  return a / 448.0f;
}

}  // namespace

extern "C" void kwb_fp8_quant_bf16_per_token(const uint16_t* x, uint8_t* q, float* scale_token, int64_t tokens,
                                             int64_t hidden) {
  for (int64_t t = 0; t < tokens; ++t) scale_token[t] = quantise(x + t * hidden, q + t * hidden, hidden);
}
