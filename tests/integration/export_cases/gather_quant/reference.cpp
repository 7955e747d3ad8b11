// Trusted reference of the export's test op gather_quant (spec.json): it also refuses inputs the
// spec's generators could not have drawn (order not a permutation, ids repeated in a row or out of
// [0, cols), offsets unsorted or not from 0 to rows), so that the exported example checks them.
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

#include "core/reference.hpp"

namespace kwb::reference {

void gather_quant(const core::ReferenceArgs& a) {
  const int64_t rows = a.param("rows"), cols = a.param("cols"), k = a.param("k"), batch = a.param("batch");
  const float* x = a.in<float>("x");
  const int32_t* order = a.in<int32_t>("order");
  const int8_t* ids = a.in<int8_t>("ids");
  const int64_t* seg = a.in<int64_t>("seg");
  double *q = a.out("q"), *scale = a.out("scale"), *picked = a.out("picked"), *seg_len = a.out("seg_len");
  std::set<int32_t> rows_seen(order, order + rows);
  if (int64_t(rows_seen.size()) != rows || *rows_seen.begin() != 0 || *rows_seen.rbegin() != rows - 1)
    throw std::invalid_argument("order is not a permutation of 0..rows-1");
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + int64_t(order[r]) * cols;
    float amax = 0;
    for (int64_t c = 0; c < cols; ++c) amax = std::fmax(amax, std::fabs(row[c]));
    const float s = amax > 0 ? amax / 448.0f : 1.0f;
    scale[r] = s;
    for (int64_t c = 0; c < cols; ++c) q[r * cols + c] = core::f8e4m3_to_float(core::double_to_f8e4m3(double(row[c]) / double(s)));
    std::set<int> picked_ids;
    for (int64_t j = 0; j < k; ++j) {
      const int id = ids[r * k + j];
      if (id < 0 || id >= cols || !picked_ids.insert(id).second)
        throw std::invalid_argument("ids of row " + std::to_string(r) + " are not distinct values of [0, cols)");
      picked[r * k + j] = row[id];
    }
  }
  if (seg[0] != 0 || seg[batch] != rows) throw std::invalid_argument("offsets do not run from 0 to rows");
  for (int64_t b = 0; b < batch; ++b) {
    if (seg[b + 1] < seg[b]) throw std::invalid_argument("offsets are not sorted");
    seg_len[b] = double(seg[b + 1] - seg[b]);
  }
}

}  // namespace kwb::reference
