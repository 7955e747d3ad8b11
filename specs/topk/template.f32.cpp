// topk f32, cpu: a simple correct kernel (a template to start from: GET /v1/specs/topk). Per row,
// the k best seen so far in a buffer sorted in descending order: an element larger than the
// buffer's smallest (or any element while the buffer is not full) is inserted in its place. Among
// equal values the first seen stays (the outputs are compared as a set: any choice among ties is
// right).
#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" void kwb_topk_f32(const float* x, float* values, int32_t* indices, int64_t rows, int64_t cols, int64_t k) {
  std::vector<float> best(static_cast<size_t>(k));
  std::vector<int32_t> where(static_cast<size_t>(k));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    int64_t held = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const float v = row[c];
      if (held == k && !(v > best[size_t(k - 1)])) continue;
      int64_t j = held < k ? held++ : k - 1;  // the slot freed at the end
      for (; j > 0 && v > best[size_t(j - 1)]; --j) {
        best[size_t(j)] = best[size_t(j - 1)];
        where[size_t(j)] = where[size_t(j - 1)];
      }
      best[size_t(j)] = v;
      where[size_t(j)] = int32_t(c);
    }
    for (int64_t j = 0; j < k; ++j) {
      values[r * k + j] = best[size_t(j)];
      indices[r * k + j] = where[size_t(j)];
    }
  }
}
