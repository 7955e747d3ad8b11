// A wrong topk kernel (tests/integration/test_model_op_specs.cpp): ties broken wrongly. It keeps
// one element per distinct value (a value equal to one already held is skipped), so a row whose
// top k holds a repeated value reports smaller values in its place. Right on rows of distinct
// values (the normal distribution), wrong under "ties".
#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" void kwb_topk_f32(const float* x, float* values, int32_t* indices, int64_t rows, int64_t cols, int64_t k) {
  std::vector<float> best(static_cast<std::size_t>(k));
  std::vector<int32_t> where(static_cast<std::size_t>(k));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    int64_t held = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const float v = row[c];
      bool seen = false;
      for (int64_t j = 0; j < held; ++j) seen = seen || best[std::size_t(j)] == v;
      if (seen || (held == k && !(v > best[std::size_t(k - 1)]))) continue;
      int64_t j = held < k ? held++ : k - 1;
      for (; j > 0 && v > best[std::size_t(j - 1)]; --j) {
        best[std::size_t(j)] = best[std::size_t(j - 1)];
        where[std::size_t(j)] = where[std::size_t(j - 1)];
      }
      best[std::size_t(j)] = v;
      where[std::size_t(j)] = int32_t(c);
    }
    for (int64_t j = held; j < k; ++j) {  // fewer distinct values than k: repeat the last
      best[std::size_t(j)] = best[std::size_t(held - 1)];
      where[std::size_t(j)] = where[std::size_t(held - 1)];
    }
    for (int64_t j = 0; j < k; ++j) {
      values[r * k + j] = best[std::size_t(j)];
      indices[r * k + j] = where[std::size_t(j)];
    }
  }
}
