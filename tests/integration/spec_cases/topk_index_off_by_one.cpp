// A wrong topk kernel (tests/integration/test_model_op_specs.cpp): the right values, each index
// one column too far right (clamped to the row).
#include <algorithm>
#include <cstdint>
#include <vector>

extern "C" void kwb_topk_f32(const float* x, float* values, int32_t* indices, int64_t rows, int64_t cols, int64_t k) {
  std::vector<char> taken(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    std::fill(taken.begin(), taken.end(), 0);
    for (int64_t j = 0; j < k; ++j) {
      int64_t best = -1;
      for (int64_t c = 0; c < cols; ++c)
        if (!taken[size_t(c)] && (best < 0 || row[c] > row[best])) best = c;
      taken[size_t(best)] = 1;
      values[r * k + j] = row[best];
      indices[r * k + j] = int32_t(std::min(best + 1, cols - 1));
    }
  }
}
