#include "eval/compare.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

#include <fmt/format.h>

#include "util/parallel.hpp"

namespace kwb::eval {

std::vector<int64_t> unravel(int64_t i, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
  return idx;
}

bool is_poison(const void* data, core::DType t, size_t i, unsigned char poison) {
  size_t n = core::dtype_size(t);
  const auto* p = static_cast<const unsigned char*>(data) + i * n;
  for (size_t k = 0; k < n; ++k)
    if (p[k] != poison) return false;
  return true;
}

bool within_tolerance(double got, double want, const core::Tolerance& tol, double& abs_err, double& rel_err) {
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

namespace {

// Elements [begin, end) of one output.
Comparison compare_range(const void* got, core::DType dtype, const std::vector<double>& want,
                         const core::Tolerance& tol, const std::vector<int64_t>& shape, const std::string& tensor,
                         unsigned char poison, size_t begin, size_t end) {
  Comparison c;
  const int64_t row_len = shape.size() >= 2 ? int64_t(want.size()) / std::max<int64_t>(shape[0], 1) : 0;
  const bool fast = !(tol.exact || (tol.atol == 0 && tol.rtol == 0));
  const float* got_f32 = dtype == core::DType::f32 ? static_cast<const float*>(got) : nullptr;
  for (size_t i = begin; i < end; ++i) {
    const double w = want[i];
    const double g = got_f32 ? double(got_f32[i]) : core::load_as_double(got, dtype, i);
    if (fast) {  // the common case, in a few instructions: both finite and within tolerance
      const double d = std::fabs(g - w), aw = std::fabs(w);
      // False for NaNs; an infinite expected value takes the exact path below.
      if (aw <= std::numeric_limits<double>::max() && d <= tol.atol + tol.rtol * aw) {
        if (d > c.max_abs_err) c.max_abs_err = d;
        if (aw > tol.atol && d > c.max_rel_err * aw) c.max_rel_err = d / aw;
        continue;
      }
    }
    double a = 0, r = 0;
    bool ok = within_tolerance(g, want[i], tol, a, r);
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

constexpr size_t k_compare_chunk = size_t(1) << 20;

}  // namespace

Comparison compare_output(const void* got, core::DType dtype, const std::vector<double>& want,
                          const core::Tolerance& tol, const std::vector<int64_t>& shape,
                          const std::string& tensor, unsigned char poison) {
  const size_t n = want.size(), chunks = (n + k_compare_chunk - 1) / k_compare_chunk;
  if (chunks <= 1) return compare_range(got, dtype, want, tol, shape, tensor, poison, 0, n);
  // Large outputs: chunks on every core, merged in index order (so the first mismatch, the last
  // and the bad rows are what one pass would find).
  std::vector<Comparison> parts(chunks);
  util::parallel_chunks(chunks, [&](size_t k) {
    parts[k] = compare_range(got, dtype, want, tol, shape, tensor, poison, k * k_compare_chunk,
                             std::min(n, (k + 1) * k_compare_chunk));
  });
  Comparison c;
  for (auto& p : parts) {
    c.max_abs_err = std::max(c.max_abs_err, p.max_abs_err);
    c.max_rel_err = std::max(c.max_rel_err, p.max_rel_err);
    c.mismatches += p.mismatches;
    c.poisoned += p.poisoned;
    if (c.first_bad < 0 && p.first_bad >= 0) {
      c.first_bad = p.first_bad;
      c.first = p.first;
    }
    if (p.last_bad >= 0) c.last_bad = p.last_bad;
    for (int64_t row : p.bad_rows)
      if ((c.bad_rows.empty() || c.bad_rows.back() != row) && c.bad_rows.size() < 1024) c.bad_rows.push_back(row);
  }
  return c;
}

std::string describe_mismatch(const Comparison& c, const core::Tolerance& tol, size_t count,
                              const std::vector<int64_t>& shape, const std::string& tensor) {
  std::string idx;
  for (size_t k = 0; k < c.first->index.size(); ++k) idx += (k ? ", " : "") + std::to_string(c.first->index[k]);
  std::string tol_text = tol.exact ? "exact" : fmt::format("atol {:g}, rtol {:g}", tol.atol, tol.rtol);
  if (!c.detail.empty())
    return fmt::format("output {}: {} of {} elements wrong (compared as a set per row); first at [{}]: {} ({}){}",
                       tensor, c.mismatches, count, idx, c.detail, tol_text,
                       c.poisoned == c.mismatches ? "; never written (still the poison pattern)" : "");
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
