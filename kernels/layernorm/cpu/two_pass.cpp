// layernorm, CPU: corrected two-pass per row, every reduction in 32 independent f32 lanes
// (fixed-size inner loops the compiler maps onto SIMD registers without -ffast-math), folded per
// 1024-column block and combined pairwise.
//   pass 1: m = sum(x) / n                      (rounded f32 mean)
//   pass 2: d = x - m; S1 = sum(d), S2 = sum(d^2)
//           mean = m + S1/n, var = (S2 - S1^2/n) / n   (the correction term removes the rounding
//           of m, which matters when |mean| >> stddev, e.g. rows near 1e4 with spread 1)
//   pass 3: y = (d - S1/n) * rstd * gamma + beta
// No E[x^2] - E[x]^2: that cancels catastrophically for rows with a large offset.
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace {

constexpr int kLanes = 32;
constexpr int64_t kBlock = 1024;  // multiple of kLanes

inline float fold(float* v) {
  for (int w = kLanes / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) v[l] += v[l + w];
  return v[0];
}

float row_sum(const float* __restrict x, int64_t cols) {
  float total[kLanes] = {};
  int64_t c = 0;
  const int64_t full = cols - cols % kLanes;
  while (c < full) {
    const int64_t end = std::min(full, c + kBlock);
    float acc[kLanes] = {};
    for (; c < end; c += kLanes)
      for (int l = 0; l < kLanes; ++l) acc[l] += x[c + l];
    for (int l = 0; l < kLanes; ++l) total[l] += acc[l];
  }
  for (int l = 0; c + l < cols; ++l) total[l] += x[c + l];
  return fold(total);
}

// Sums of d = x - m and of d^2.
void deviation_sums(const float* __restrict x, int64_t cols, float m, float& s1, float& s2) {
  float t1[kLanes] = {}, t2[kLanes] = {};
  int64_t c = 0;
  const int64_t full = cols - cols % kLanes;
  while (c < full) {
    const int64_t end = std::min(full, c + kBlock);
    float a1[kLanes] = {}, a2[kLanes] = {};
    for (; c < end; c += kLanes)
      for (int l = 0; l < kLanes; ++l) {
        const float d = x[c + l] - m;
        a1[l] += d;
        a2[l] += d * d;
      }
    for (int l = 0; l < kLanes; ++l) {
      t1[l] += a1[l];
      t2[l] += a2[l];
    }
  }
  for (int l = 0; c + l < cols; ++l) {
    const float d = x[c + l] - m;
    t1[l] += d;
    t2[l] += d * d;
  }
  s1 = fold(t1);
  s2 = fold(t2);
}

}  // namespace

extern "C" void kwb_layernorm_f32(const float* x, const float* gamma, const float* beta, float* y, int64_t rows,
                                  int64_t cols) {
  const float* __restrict g = gamma;
  const float* __restrict b = beta;
  const float n = float(cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float* __restrict xr = x + r * cols;
    float* __restrict yr = y + r * cols;
    const float m = row_sum(xr, cols) / n;
    float s1, s2;
    deviation_sums(xr, cols, m, s1, s2);
    const float shift = s1 / n;                            // mean - m
    const float v = (s2 - s1 * shift) / n;  // biased variance; clamp rounding below 0, keep NaN
    const float var = v < 0.0f ? 0.0f : v;
    const float rstd = 1.0f / std::sqrt(var + 1e-5f);
    for (int64_t c = 0; c < cols; ++c) yr[c] = ((xr[c] - m) - shift) * rstd * g[c] + b[c];
  }
}
