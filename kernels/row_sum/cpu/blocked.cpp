// row_sum, CPU: blocked multi-lane summation. Each row is summed by 32 independent f32 lanes
// (a fixed-size inner loop the compiler maps onto SIMD registers without -ffast-math), in blocks
// of 1024 columns; each block's lanes are added into a second set of 32 lane totals, and the
// lanes are combined pairwise at the end. No partial sum ever grows beyond ~1024/32 = 32 terms
// before being folded, so the error stays near that of pairwise summation.
#include <algorithm>
#include <cstdint>

namespace {

constexpr int kLanes = 32;
constexpr int64_t kBlock = 1024;  // multiple of kLanes

inline float pairwise_lanes(float* v) {
  for (int w = kLanes / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) v[l] += v[l + w];
  return v[0];
}

float sum_row(const float* __restrict x, int64_t cols) {
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
  float tail[kLanes] = {};
  for (int l = 0; c + l < cols; ++l) tail[l] = x[c + l];
  for (int l = 0; l < kLanes; ++l) total[l] += tail[l];
  return pairwise_lanes(total);
}

}  // namespace

extern "C" void kwb_row_sum_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) y[r] = sum_row(x + r * cols, cols);
}
