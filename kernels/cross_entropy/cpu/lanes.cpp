// cross_entropy, CPU: two passes per row over its bf16 logits (a row of up to 128k logits, 256 KiB,
// stays in L2 for the second pass), both vectorised without -ffast-math:
//   pass 1: the row max and the sum of the logits in 32 independent f32 lanes (bf16 widened by a
//           16-bit shift);
//   pass 2: the sum of exp(x - max) in 32 lanes, folded per 1024-column block into lane totals;
//           exp is an inline Cody-Waite range reduction + degree-6 polynomial + exponent-bit
//           scaling (~2 ulp), so the loop vectorises (a libm call would not).
// Then lse = max + log(sum) and loss = (1 - s) * (lse - x[y]) + s * (lse - sum_x / vocab).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace {

constexpr int kLanes = 32;
constexpr int64_t kBlock = 1024;  // multiple of kLanes

inline float widen(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

// exp(x) for x <= 0 (x - rowmax); 0 below -87.3 where the result would be subnormal.
inline float exp_nonpositive(float x) {
  const float lo = -87.33654f;
  const float xc = x < lo ? lo : x;
  const float magic = 12582912.0f;  // 1.5 * 2^23: round to nearest integer
  const float n = (xc * 1.44269504088896341f + magic) - magic;
  float r = xc - n * 0.693359375f;  // Cody-Waite: ln2 in two parts
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;  // exp(r) on [-ln2/2, ln2/2] (Cephes expf coefficients)
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const float scale = std::bit_cast<float>((int32_t(n) + 127) << 23);  // 2^n, n in [-126, 0]
  return x < lo ? 0.0f : p * scale;
}

inline float fold(float* v) {
  for (int w = kLanes / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) v[l] += v[l + w];
  return v[0];
}

float row_loss(const uint16_t* __restrict x, int32_t label, int64_t vocab, float s) {
  const int64_t full = vocab - vocab % kLanes;
  // Pass 1: max and sum of the logits.
  float mx[kLanes], sx[kLanes] = {};
  for (int l = 0; l < kLanes; ++l) mx[l] = -INFINITY;
  for (int64_t c = 0; c < full; c += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      const float v = widen(x[c + l]);
      mx[l] = v > mx[l] ? v : mx[l];
      sx[l] += v;
    }
  for (int64_t c = full; c < vocab; ++c) {
    const float v = widen(x[c]);
    mx[c - full] = v > mx[c - full] ? v : mx[c - full];
    sx[c - full] += v;
  }
  float m = mx[0];
  for (int l = 1; l < kLanes; ++l) m = mx[l] > m ? mx[l] : m;
  // Pass 2: sum of exp(x - max).
  float total[kLanes] = {};
  int64_t c = 0;
  while (c < full) {
    const int64_t end = std::min(full, c + kBlock);
    float acc[kLanes] = {};
    for (; c < end; c += kLanes)
      for (int l = 0; l < kLanes; ++l) acc[l] += exp_nonpositive(widen(x[c + l]) - m);
    for (int l = 0; l < kLanes; ++l) total[l] += acc[l];
  }
  for (int l = 0; c + l < vocab; ++l) total[l] += exp_nonpositive(widen(x[c + l]) - m);
  const float lse = m + std::log(fold(total));
  const float target = lse - widen(x[label]);
  return s == 0.0f ? target : (1.0f - s) * target + s * (lse - fold(sx) / float(vocab));
}

}  // namespace

extern "C" void kwb_cross_entropy_bf16(const uint16_t* logits, const int32_t* labels, float* loss, int64_t rows,
                                       int64_t vocab, double label_smoothing) {
  const float s = float(label_smoothing);
  for (int64_t r = 0; r < rows; ++r) loss[r] = row_loss(logits + r * vocab, labels[r], vocab, s);
}
