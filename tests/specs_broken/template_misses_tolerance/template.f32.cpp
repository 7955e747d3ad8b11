// template_misses_tolerance f32, cpu: a sequential f32 sum per row (a same-precision kernel).
#include <cstdint>

extern "C" void kwb_template_misses_tolerance_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    float s = 0.0f;
    for (int64_t c = 0; c < cols; ++c) s += x[r * cols + c];
    y[r] = s;
  }
}
