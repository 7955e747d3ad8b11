// topk f32, cpu: the simplest correct kernel (a template to start from). Per row, k passes that
// each take the largest element not taken yet; among equal values the highest column (the
// reference takes the lowest: both are right, the outputs are compared as a set).
#include <cstdint>
#include <algorithm>
#include <vector>

extern "C" void kwb_topk_f32(const float* x, float* values, int32_t* indices, int64_t rows, int64_t cols, int64_t k) {
  std::vector<char> taken(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    std::fill(taken.begin(), taken.end(), 0);
    for (int64_t j = 0; j < k; ++j) {
      int64_t best = -1;
      for (int64_t c = 0; c < cols; ++c)
        if (!taken[size_t(c)] && (best < 0 || row[c] >= row[best])) best = c;
      taken[size_t(best)] = 1;
      values[r * k + j] = row[best];
      indices[r * k + j] = int32_t(best);
    }
  }
}
