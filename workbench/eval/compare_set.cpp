// compare_set: an index output (top-k) compared row by row as a set (docs/specs.md "Set outputs").
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "eval/compare.hpp"

namespace kwb::eval {

namespace {

double at(TensorView v, size_t i) { return core::load_as_double(v.data, v.dtype, i); }

// NaNs last, so that two rows holding the same NaNs sort alike.
bool before(double a, double b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return a < b;
}

void mark(Comparison& c, const std::string& tensor, const std::vector<int64_t>& shape, int64_t flat, double got,
          double expected, std::string detail, bool poisoned) {
  ++c.mismatches;
  if (poisoned) ++c.poisoned;
  if (c.first_bad < 0) {
    c.first_bad = flat;
    c.first = core::Mismatch{tensor, unravel(flat, shape), got, expected};
    c.detail = std::move(detail);
  }
  c.last_bad = flat;
  const int64_t row = shape.size() >= 2 ? flat / std::max<int64_t>(shape.back(), 1) : 0;
  if ((c.bad_rows.empty() || c.bad_rows.back() != row) && c.bad_rows.size() < 1024) c.bad_rows.push_back(row);
}

std::string coords(const std::vector<int64_t>& shape, int64_t flat) {
  std::string s;
  for (auto x : unravel(flat, shape)) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

}  // namespace

SetComparison compare_set(TensorView indices, const std::vector<double>& want_indices, TensorView values,
                          const std::vector<double>* want_values, TensorView of, int64_t of_row,
                          const core::Tolerance& tol, const std::vector<int64_t>& shape,
                          const std::string& index_name, const std::string& values_name, unsigned char poison) {
  SetComparison out;
  const int64_t k = shape.empty() ? 1 : std::max<int64_t>(shape.back(), 1);
  const int64_t count = int64_t(want_indices.size()), rows = count / k;
  const core::Tolerance exact{true, 0, 0};
  std::vector<double> got_sel, want_sel, got_vals, want_vals;
  for (int64_t r = 0; r < rows; ++r) {
    std::set<int64_t> seen;
    got_sel.clear();
    want_sel.clear();
    got_vals.clear();
    want_vals.clear();
    for (int64_t j = 0; j < k; ++j) {
      const int64_t flat = r * k + j;
      const double g = at(indices, size_t(flat));
      const bool poisoned = indices.dtype != core::DType::f64 && is_poison(indices.data, indices.dtype, size_t(flat), poison);
      const double w = want_indices[size_t(flat)];
      if (w >= 0 && w < double(of_row)) want_sel.push_back(at(of, size_t(r * of_row + int64_t(w))));
      if (!(g >= 0 && g < double(of_row)) || g != std::floor(g)) {
        mark(out.indices, index_name, shape, flat, g, w,
             fmt::format("index {:.17g} is outside [0, {}) of a row of the input", g, of_row), poisoned);
        continue;
      }
      const int64_t idx = int64_t(g);
      if (!seen.insert(idx).second) {
        mark(out.indices, index_name, shape, flat, g, w,
             fmt::format("index {} appears twice in row {} (a row's indices select distinct elements)", idx, r), false);
        continue;
      }
      const double selected = at(of, size_t(r * of_row + idx));
      got_sel.push_back(selected);
      if (!values.data) continue;
      const double v = at(values, size_t(flat));
      double a = 0, rel = 0;
      if (!within_tolerance(v, selected, tol, a, rel))
        mark(out.indices, index_name, shape, flat, g, w,
             fmt::format("index {} points at {:.9g}, but {}[{}] reports {:.9g} beside it", idx, selected, values_name,
                         coords(shape, flat), v),
             false);
    }
    if (values.data && want_values) {
      // The reported values as a multiset against the expected ones (sorted, pairwise).
      for (int64_t j = 0; j < k; ++j) got_vals.push_back(at(values, size_t(r * k + j)));
      for (int64_t j = 0; j < k; ++j) want_vals.push_back((*want_values)[size_t(r * k + j)]);
      std::sort(got_vals.begin(), got_vals.end(), before);
      std::sort(want_vals.begin(), want_vals.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        double a = 0, rel = 0;
        const bool ok = within_tolerance(got_vals[size_t(j)], want_vals[size_t(j)], tol, a, rel);
        if (std::isfinite(a)) out.values.max_abs_err = std::max(out.values.max_abs_err, a);
        if (std::isfinite(rel) && std::fabs(want_vals[size_t(j)]) > tol.atol)
          out.values.max_rel_err = std::max(out.values.max_rel_err, rel);
        if (ok) continue;
        mark(out.values, values_name, shape, r * k + j, got_vals[size_t(j)], want_vals[size_t(j)],
             fmt::format("row {} as a multiset: in ascending order its value #{} is {:.9g}, expected {:.9g}", r, j + 1,
                         got_vals[size_t(j)], want_vals[size_t(j)]),
             false);
        break;  // one per row: a value off shifts the rest of the sorted row
      }
    } else if (!values.data && got_sel.size() == size_t(k)) {
      // No values output: the elements selected must be those the reference selects (ties aside).
      std::sort(got_sel.begin(), got_sel.end(), before);
      std::sort(want_sel.begin(), want_sel.end(), before);
      for (size_t j = 0; j < got_sel.size() && j < want_sel.size(); ++j) {
        double a = 0, rel = 0;
        if (within_tolerance(got_sel[j], want_sel[j], exact, a, rel)) continue;
        mark(out.indices, index_name, shape, r * k + int64_t(j), got_sel[j], want_sel[j],
             fmt::format("row {} selects other elements than expected: in ascending order its selected value #{} is "
                         "{:.9g}, the expected selection's {:.9g}",
                         r, j + 1, got_sel[j], want_sel[j]),
             false);
        break;
      }
    }
  }
  return out;
}

}  // namespace kwb::eval
