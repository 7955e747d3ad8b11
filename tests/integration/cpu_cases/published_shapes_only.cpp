// kwb-expect: op=softmax status=incorrect reason="workload drawn:rows="
// Tuned to the published shapes (an agent that specialises to what it was shown): exact softmax
// for the (rows, cols) pairs of specs/softmax/spec.json's test and bench workloads, and for any
// other shape a stub that writes zeros. Without drawn shapes it would be accepted
// (test_drawn_shapes.cpp checks both); drawn shapes are never published ones, so every seed
// catches it.
#include <cmath>
#include <cstdint>

namespace {

bool published(int64_t rows, int64_t cols) {
  constexpr int64_t k_shapes[][2] = {{1, 1},    {1, 7},      {3, 31},     {17, 33},   {5, 127},
                                     {7, 1000}, {2, 4099},   {1024, 1024}, {64, 32000}, {8192, 8192}};
  for (const auto& s : k_shapes)
    if (s[0] == rows && s[1] == cols) return true;
  return false;
}

}  // namespace

extern "C" void kwb_softmax_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  if (!published(rows, cols)) {
    for (int64_t i = 0; i < rows * cols; ++i) y[i] = 0.0f;
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += std::exp(double(xr[c]) - m);
    for (int64_t c = 0; c < cols; ++c) yr[c] = float(std::exp(double(xr[c]) - m) / s);
  }
}
