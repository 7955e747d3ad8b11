// row_sum, CPU: deliberately slow, the incumbent that test_tune_loop.py seeds its library with.
// One double accumulator per row (accurate), and every element makes 32 needless round trips
// through a volatile stack slot: about a hundred milliseconds per 1M-element call, where a blocked
// multi-lane variant takes well under one. The margin must dwarf what load adds to a block's
// time (a preempted block reads milliseconds late on a busy two-core machine), so that the
// interleaved comparison labels the variants faster even there.
#include <cstdint>
extern "C" void kwb_row_sum_f32(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    double acc = 0.0;
    for (int64_t c = 0; c < cols; ++c) {
      volatile float v = x[r * cols + c];
      for (int k = 0; k < 32; ++k) v = v;
      acc += v;
    }
    y[r] = static_cast<float>(acc);
  }
}
