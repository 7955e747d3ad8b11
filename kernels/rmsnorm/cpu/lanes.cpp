// rmsnorm, CPU: two passes per row. Pass 1: sum of squares in 32 independent f32 lanes (a
// fixed-size inner loop the compiler maps onto SIMD registers without -ffast-math), folded per
// 1024-column block into lane totals and combined pairwise. Pass 2: y = x * (1/rms) * w with one
// reciprocal square root per row, a plain vectorised loop.
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace {

constexpr int kLanes = 32;
constexpr int64_t kBlock = 1024;  // multiple of kLanes

float sum_squares(const float* __restrict x, int64_t cols) {
  float total[kLanes] = {};
  int64_t c = 0;
  const int64_t full = cols - cols % kLanes;
  while (c < full) {
    const int64_t end = std::min(full, c + kBlock);
    float acc[kLanes] = {};
    for (; c < end; c += kLanes)
      for (int l = 0; l < kLanes; ++l) acc[l] += x[c + l] * x[c + l];
    for (int l = 0; l < kLanes; ++l) total[l] += acc[l];
  }
  for (int l = 0; c + l < cols; ++l) total[l] += x[c + l] * x[c + l];
  for (int w = kLanes / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) total[l] += total[l + w];
  return total[0];
}

}  // namespace

extern "C" void kwb_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t cols) {
  const float* __restrict pw = w;
  for (int64_t r = 0; r < rows; ++r) {
    const float* __restrict xr = x + r * cols;
    float* __restrict yr = y + r * cols;
    const float ms = sum_squares(xr, cols) / float(cols);
    const float inv = 1.0f / std::sqrt(ms + 1e-6f);
    for (int64_t c = 0; c < cols; ++c) yr[c] = xr[c] * inv * pw[c];
  }
}
