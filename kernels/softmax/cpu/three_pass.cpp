// softmax, CPU: three passes per row, all vectorised without -ffast-math.
//   pass 1: row max in 32 independent lanes;
//   pass 2: e = exp(x - max) written to y and summed in 32 lanes (blocked, pairwise combine);
//           exp is an inline Cody-Waite range reduction + degree-6 polynomial + exponent-bit
//           scaling (~2 ulp), so the loop vectorises (a libm call would not);
//   pass 3: y *= 1 / sum.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

constexpr int kLanes = 32;
constexpr int64_t kBlock = 1024;  // multiple of kLanes

// exp(x) for x <= 0 (x - rowmax); 0 below -87.3 where the result would be subnormal.
inline float exp_nonpositive(float x) {
  const float lo = -87.33654f;
  const float xc = x < lo ? lo : x;
  // n = round(xc / ln2) via the 1.5 * 2^23 trick (exact for |n| < 2^22, round-to-nearest).
  const float magic = 12582912.0f;
  const float n = (xc * 1.44269504088896341f + magic) - magic;
  // r = xc - n*ln2 in two steps (Cody-Waite); |r| <= ln2/2.
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  // exp(r) on [-ln2/2, ln2/2] (Cephes expf coefficients).
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // Multiply by 2^n through the exponent bits (n in [-126, 0] here).
  const int32_t bits = (int32_t(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  const float e = p * scale;
  return x < lo ? 0.0f : e;
}

inline float fold_sum(float* v) {
  for (int w = kLanes / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) v[l] += v[l + w];
  return v[0];
}

void softmax_row(const float* __restrict x, float* __restrict y, int64_t cols) {
  const int64_t full = cols - cols % kLanes;
  // Pass 1: max.
  float mx[kLanes];
  for (int l = 0; l < kLanes; ++l) mx[l] = -INFINITY;
  for (int64_t c = 0; c < full; c += kLanes)
    for (int l = 0; l < kLanes; ++l) mx[l] = x[c + l] > mx[l] ? x[c + l] : mx[l];
  for (int64_t c = full; c < cols; ++c) mx[0] = x[c] > mx[0] ? x[c] : mx[0];
  float m = mx[0];
  for (int l = 1; l < kLanes; ++l) m = mx[l] > m ? mx[l] : m;
  // Pass 2: exponentials and their sum.
  float total[kLanes] = {};
  int64_t c = 0;
  while (c < full) {
    const int64_t end = std::min(full, c + kBlock);
    float acc[kLanes] = {};
    for (; c < end; c += kLanes)
      for (int l = 0; l < kLanes; ++l) {
        const float e = exp_nonpositive(x[c + l] - m);
        y[c + l] = e;
        acc[l] += e;
      }
    for (int l = 0; l < kLanes; ++l) total[l] += acc[l];
  }
  for (int l = 0; c + l < cols; ++l) {
    const float e = exp_nonpositive(x[c + l] - m);
    y[c + l] = e;
    total[l] += e;
  }
  // Pass 3: normalise.
  const float inv = 1.0f / fold_sum(total);
  for (int64_t j = 0; j < cols; ++j) y[j] *= inv;
}

}  // namespace

extern "C" void kwb_softmax_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) softmax_row(x + r * cols, y + r * cols, cols);
}
