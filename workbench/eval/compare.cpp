#include "eval/compare.hpp"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace kwb::eval {

std::vector<int64_t> unravel(int64_t i, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
  return idx;
}

namespace {

bool is_poison(const void* data, core::DType t, size_t i, unsigned char poison) {
  size_t n = core::dtype_size(t);
  const auto* p = static_cast<const unsigned char*>(data) + i * n;
  for (size_t k = 0; k < n; ++k)
    if (p[k] != poison) return false;
  return true;
}

bool within(double got, double want, const core::Tolerance& tol, double& abs_err, double& rel_err) {
  abs_err = rel_err = 0;
  if (std::isnan(want)) return std::isnan(got);
  if (std::isnan(got)) {
    abs_err = rel_err = INFINITY;
    return false;
  }
  if (std::isinf(want) || std::isinf(got)) {
    if (got == want) return true;
    abs_err = rel_err = INFINITY;
    return false;
  }
  abs_err = std::fabs(got - want);
  rel_err = want != 0 ? abs_err / std::fabs(want) : (abs_err == 0 ? 0 : INFINITY);
  if (tol.exact || (tol.atol == 0 && tol.rtol == 0)) return got == want && std::signbit(got) == std::signbit(want);
  return abs_err <= tol.atol + tol.rtol * std::fabs(want);
}

}  // namespace

Comparison compare_output(const void* got, core::DType dtype, const std::vector<double>& want,
                          const core::Tolerance& tol, const std::vector<int64_t>& shape,
                          const std::string& tensor, unsigned char poison) {
  Comparison c;
  const int64_t row_len = shape.size() >= 2 ? int64_t(want.size()) / std::max<int64_t>(shape[0], 1) : 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double g = core::load_as_double(got, dtype, i);
    double a = 0, r = 0;
    bool ok = within(g, want[i], tol, a, r);
    if (std::isfinite(a)) c.max_abs_err = std::max(c.max_abs_err, a);
    else if (!ok) c.max_abs_err = INFINITY;
    // Relative error means little where the expected value is below the absolute tolerance.
    if (std::isfinite(r) && std::fabs(want[i]) > tol.atol) c.max_rel_err = std::max(c.max_rel_err, r);
    else if (!ok && !std::isfinite(r)) c.max_rel_err = INFINITY;
    if (ok) continue;
    ++c.mismatches;
    if (is_poison(got, dtype, i, poison)) ++c.poisoned;
    if (c.first_bad < 0) {
      c.first_bad = int64_t(i);
      c.first = core::Mismatch{tensor, unravel(int64_t(i), shape), g, want[i]};
    }
    c.last_bad = int64_t(i);
    if (row_len > 0) {
      int64_t row = int64_t(i) / row_len;
      if ((c.bad_rows.empty() || c.bad_rows.back() != row) && c.bad_rows.size() < 1024) c.bad_rows.push_back(row);
    }
  }
  return c;
}

std::string describe_mismatch(const Comparison& c, const core::Tolerance& tol, size_t count,
                              const std::vector<int64_t>& shape, const std::string& tensor) {
  std::string idx;
  for (size_t k = 0; k < c.first->index.size(); ++k) idx += (k ? ", " : "") + std::to_string(c.first->index[k]);
  std::string tol_text = tol.exact ? "exact" : fmt::format("atol {:g}, rtol {:g}", tol.atol, tol.rtol);
  std::string s = fmt::format("output {}: {} of {} elements wrong; first at [{}]: got {:.9g}, expected {:.9g} ({})",
                              tensor, c.mismatches, count, idx, c.first->got, c.first->expected, tol_text);
  // Hints from the shape of the failure.
  if (c.poisoned == c.mismatches)
    s += fmt::format("; {} never written (still the poison pattern)", c.mismatches == 1 ? "it was" : "they were");
  const int64_t row_len = shape.size() >= 2 && shape[0] > 0 ? int64_t(count) / shape[0] : 0;
  if (row_len > 0 && shape[0] > 1 && c.first_bad == row_len && c.mismatches == int64_t(count) - row_len)
    s += "; only row 0 is right: are the other rows computed?";
  else if (c.first_bad > 0 && c.last_bad == int64_t(count) - 1 && c.mismatches == int64_t(count) - c.first_bad &&
           c.mismatches <= 128)
    s += fmt::format("; only the last {} elements are wrong: check the tail of the loop", c.mismatches);
  else if (c.mismatches == 1)
    s += "; a single element is wrong";
  return s;
}

}  // namespace kwb::eval
