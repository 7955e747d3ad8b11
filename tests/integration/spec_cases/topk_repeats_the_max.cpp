// A wrong topk kernel (tests/integration/test_model_op_specs.cpp): the row's largest value and its
// index k times (right where a row's top k are all tied to one value, otherwise not).
#include <cstdint>

extern "C" void kwb_topk_f32(const float* x, float* values, int32_t* indices, int64_t rows, int64_t cols, int64_t k) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    int64_t best = 0;
    for (int64_t c = 1; c < cols; ++c)
      if (row[c] > row[best]) best = c;
    for (int64_t j = 0; j < k; ++j) {
      values[r * k + j] = row[best];
      indices[r * k + j] = int32_t(best);
    }
  }
}
