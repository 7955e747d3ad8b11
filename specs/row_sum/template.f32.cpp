// row_sum f32, cpu: the simplest correct kernel (a template to start from: GET /v1/specs/row_sum).
// Pairwise summation in f32 (NumPy's method: halves summed recursively, runs of up to 128 in a
// loop), whose error grows with log(cols): a same-precision kernel, which `kwb spec check` runs to
// measure how much of the tolerance such kernels use (docs/specs.md "Checking a spec", check 11).
#include <cstdint>

namespace {

float pairwise_sum(const float* x, int64_t n) {
  if (n <= 128) {
    float s = 0.0f;
    for (int64_t i = 0; i < n; ++i) s += x[i];
    return s;
  }
  const int64_t half = n / 2;
  return pairwise_sum(x, half) + pairwise_sum(x + half, n - half);
}

}  // namespace

extern "C" void kwb_row_sum_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) y[r] = pairwise_sum(x + r * cols, cols);
}
