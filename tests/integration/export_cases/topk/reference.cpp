// Trusted reference for topk: per row, the k largest values in descending order, ties to the
// lowest column (any other choice among ties is as right: the spec compares the outputs as a set).
#include <algorithm>
#include <numeric>
#include <vector>

#include "core/reference.hpp"

namespace kwb::reference {

void topk(const core::ReferenceArgs& a) {
  const int64_t rows = a.param("rows"), cols = a.param("cols"), k = a.param("k");
  const float* x = a.in<float>("x");
  double* values = a.out("values");
  double* indices = a.out("indices");
  std::vector<int64_t> order(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t i, int64_t j) {
      return row[i] > row[j] || (row[i] == row[j] && i < j);
    });
    for (int64_t j = 0; j < k; ++j) {
      values[r * k + j] = double(row[order[size_t(j)]]);
      indices[r * k + j] = double(order[size_t(j)]);
    }
  }
}

}  // namespace kwb::reference
