// Pieces of the package's example/check.hpp (gen_example_check.cpp): the input generators of the
// spec format, and the set comparison of index outputs. The package builds without the workbench,
// so they are the workbench's code written again for the example: the generators draw as
// eval/inputs.cpp does (the same kinds, ranges and shapes of offsets, from the example's own
// random numbers), and compare_set judges as eval/compare_set.cpp does (docs/specs.md "Set
// outputs"). The bounds arrive resolved: gen_example.cpp evaluates them per workload with
// spec::resolve_generator.
#include "package/model.hpp"

namespace kwb::package {

std::string example_draw_text() {
  return R"kwb(// One generator of a spec distribution, resolved for a workload: uniform [a, b), normal (mean a,
// stddev b), int_uniform [a, b], constant a; distinct: different integers of [a, b] (within each
// row with per_row), permutation: 0 .. m-1 in random order (m: the element count, or the row
// length with per_row); offsets: sorted from 0 to `end`, consecutive lengths in
// [min_length, max_length], shaped even, skewed or with empty sequences.
struct Gen {
  enum Kind { uniform, normal, int_uniform, constant, distinct, permutation, offsets } kind;
  double a, b;
  double end, min_length, max_length;
  bool per_row;
  double draw(Rng& r) const {
    switch (kind) {
      case uniform: return a + (b - a) * r.uniform();
      case normal: {
        const double u1 = 1.0 - r.uniform(), u2 = r.uniform();
        return a + b * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
      }
      case int_uniform: return std::fmin(b, a + std::floor(r.uniform() * (b - a + 1)));
      default: return a;
    }
  }
};

inline uint64_t below(Rng& r, uint64_t n) { return uint64_t((unsigned __int128)r.next() * n >> 64); }

// `count` distinct values of [lo, hi] in random order (hi - lo + 1 >= count: the workbench checked).
inline void distinct_values(Rng& r, int64_t lo, int64_t hi, size_t count, std::vector<int64_t>& out) {
  out.clear();
  const uint64_t span = uint64_t(hi - lo) + 1;
  if (span <= 4 * uint64_t(count) + 64) {  // a partial Fisher-Yates shuffle of the whole range
    std::vector<int64_t> all(static_cast<size_t>(span));
    for (uint64_t i = 0; i < span; ++i) all[i] = lo + int64_t(i);
    for (size_t i = 0; i < count; ++i) {
      std::swap(all[i], all[i + below(r, span - i)]);
      out.push_back(all[i]);
    }
    return;
  }
  std::unordered_set<int64_t> seen;  // a sparse draw: rejection
  while (out.size() < count) {
    const int64_t v = lo + int64_t(below(r, span));
    if (seen.insert(v).second) out.push_back(v);
  }
}

// `n` lengths in [mn, mx] summing to `end` (n * mn <= end <= n * mx: the workbench checked).
inline std::vector<int64_t> lengths(Rng& r, int64_t n, int64_t end, int64_t mn, int64_t mx) {
  std::vector<int64_t> len(static_cast<size_t>(n), 0);
  const int64_t cap = mx - mn;
  int64_t rem = end - n * mn;
  const uint64_t shape = below(r, 3);  // 0 even-ish, 1 skewed, 2 with empty sequences
  std::vector<double> w(static_cast<size_t>(n));
  double total = 0;
  for (auto& x : w) {
    const double u = r.uniform();
    x = shape == 0 ? 0.5 + u : shape == 1 ? u * u * u * u : (r.uniform() < 0.3 ? 0.0 : u);
    total += x;
  }
  if (total > 0)
    for (size_t i = 0; i < len.size(); ++i) {
      len[i] = std::min<int64_t>(cap, int64_t(double(rem) * w[i] / total));
      rem -= len[i];
    }
  for (int64_t k = 0; rem > 0 && k < 2 * n; ++k) {  // what rounding and the cap left, spread at random
    const size_t i = size_t(below(r, uint64_t(n)));
    const int64_t take = std::min({rem, cap - len[i], std::max<int64_t>(1, rem / n)});
    len[i] += take;
    rem -= take;
  }
  for (size_t i = 0; rem > 0 && i < len.size(); ++i) {  // and a sweep, so that it always ends
    const int64_t take = std::min(rem, cap - len[i]);
    len[i] += take;
    rem -= take;
  }
  for (auto& x : len) x += mn;
  return len;
}

// Fills `v` (elements of dtype `t`; `row_length`: the tensor's last dimension) from `g`.
template <class T>
void fill(std::vector<T>& v, DType t, const Gen& g, Rng& r, size_t row_length) {
  if (v.empty()) return;
  if (g.kind == Gen::offsets) {
    const auto len = lengths(r, int64_t(v.size()) - 1, int64_t(g.end), int64_t(g.min_length), int64_t(g.max_length));
    int64_t at = 0;
    kwb::core::store_from_double(v.data(), t, 0, 0);
    for (size_t i = 0; i < len.size(); ++i) kwb::core::store_from_double(v.data(), t, i + 1, double(at += len[i]));
    return;
  }
  if (g.kind == Gen::distinct || g.kind == Gen::permutation) {
    const size_t row = g.per_row ? std::max<size_t>(row_length, 1) : v.size();
    std::vector<int64_t> values;
    for (size_t begin = 0; begin < v.size(); begin += row) {
      const size_t n = std::min(row, v.size() - begin);
      const bool perm = g.kind == Gen::permutation;
      distinct_values(r, perm ? 0 : int64_t(g.a), perm ? int64_t(n) - 1 : int64_t(g.b), n, values);
      for (size_t i = 0; i < n; ++i) kwb::core::store_from_double(v.data(), t, begin + i, double(values[i]));
    }
    return;
  }
  for (size_t i = 0; i < v.size(); ++i) kwb::core::store_from_double(v.data(), t, i, g.draw(r));
}
)kwb";
}

std::string example_set_text() {
  return R"kwb(// A tensor's elements as doubles, whatever their dtype (data null: no tensor).
struct View {
  const void* data = nullptr;
  DType dtype = DType::f64;
  double at(size_t i) const { return kwb::core::load_as_double(data, dtype, i); }
};
template <class T>
View view(const std::vector<T>& v, DType t) { return View{v.data(), t}; }

// NaNs last, so that two rows holding the same NaNs sort alike.
inline bool before(double a, double b) { return std::isnan(a) ? false : std::isnan(b) ? true : a < b; }

// An index output under a set rule (docs/specs.md "Set outputs" in the workbench), row by row
// (rows of `row_k`, its last dimension; `of` has rows of `of_row`): the indices distinct, whole, in [0, of_row), each pointing at
// an element of the same row of `of` equal (within `tol`) to the value reported beside it, and the
// reported values equal to the expected ones as a multiset; without a values output, the elements
// selected equal those the reference selects, as a multiset, exactly. The order within a row is free.
inline void compare_set(Report& report, const char* workload, const char* tensor, View idx,
                        const std::vector<double>& want_idx, const char* values_name, View values,
                        const std::vector<double>* want_values, View of, size_t of_row, size_t row_k, Tol tol) {
  report.checked(workload);
  char line[512];
  auto bad = [&](size_t flat, const char* what, double a, double b) {
    std::snprintf(line, sizeof line, "workload %s: %s[%zu] (compared as a set per row): %s %.9g, %.9g", workload,
                  tensor, flat, what, a, b);
    report.mismatch(workload, line);
  };
  const size_t count = want_idx.size();
  for (size_t r = 0; row_k && r < count / row_k; ++r) {
    std::set<int64_t> seen;
    std::vector<double> got_sel, want_sel, got_vals, want_vals;
    for (size_t j = 0; j < row_k; ++j) {
      const size_t flat = r * row_k + j;
      const double g = idx.at(flat), w = want_idx[flat];
      if (w >= 0 && w < double(of_row)) want_sel.push_back(of.at(r * of_row + size_t(w)));
      if (!(g >= 0 && g < double(of_row)) || g != std::floor(g)) {
        bad(flat, "index outside the row of the input (index, row length)", g, double(of_row));
        return;
      }
      if (!seen.insert(int64_t(g)).second) {
        bad(flat, "index appears twice in its row (index, row)", g, double(r));
        return;
      }
      const double selected = of.at(r * of_row + size_t(g));
      got_sel.push_back(selected);
      if (!values.data) continue;
      const double v = values.at(flat);
      if (!within(v, selected, tol)) {
        std::snprintf(line, sizeof line, "workload %s: %s[%zu] (compared as a set per row): index %.0f points at %.9g, "
                      "but %s[%zu] reports %.9g beside it", workload, tensor, flat, g, selected, values_name, flat, v);
        report.mismatch(workload, line);
        return;
      }
    }
    std::vector<double>& got = values.data ? got_vals : got_sel;
    std::vector<double>& want = values.data ? want_vals : want_sel;
    if (values.data && want_values)
      for (size_t j = 0; j < row_k; ++j) {
        got_vals.push_back(values.at(r * row_k + j));
        want_vals.push_back((*want_values)[r * row_k + j]);
      }
    std::sort(got.begin(), got.end(), before);
    std::sort(want.begin(), want.end(), before);
    const Tol rule = values.data ? tol : Tol{true, 0, 0};
    for (size_t j = 0; j < got.size() && j < want.size(); ++j) {
      if (within(got[j], want[j], rule)) {
        if (std::isfinite(want[j])) report.error_seen(std::fabs(got[j] - want[j]));
        continue;
      }
      std::snprintf(line, sizeof line, "workload %s: row %zu of %s as a multiset (compared as a set per row): in "
                    "ascending order its value #%zu is %.9g, expected %.9g", workload, r,
                    values.data ? values_name : tensor, j + 1, got[j], want[j]);
      report.mismatch(workload, line);
      return;
    }
  }
}
)kwb";
}

}  // namespace kwb::package
