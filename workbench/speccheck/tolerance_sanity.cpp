#include "speccheck/tolerance_sanity.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "eval/compare.hpp"

namespace kwb::speccheck::detail {

namespace {

bool exact(const core::Tolerance& t) { return t.exact || (t.atol == 0 && t.rtol == 0); }

std::string tolerance_text(const core::Tolerance& t) {
  return exact(t) ? "exact" : fmt::format("atol {:g}, rtol {:g}", t.atol, t.rtol);
}

// The range of an integer dtype, as doubles (i64 and u32 are exact at their ends).
std::pair<double, double> integer_range(core::DType t) {
  switch (t) {
    case core::DType::i32: return {-2147483648.0, 2147483647.0};
    case core::DType::u32: return {0, 4294967295.0};
    case core::DType::i64: return {-9223372036854775808.0, 9223372036854774784.0};
    case core::DType::u8: return {0, 255};
    case core::DType::i8: return {-128, 127};
    default: return {0, 0};
  }
}

// A set rule's values output: its rows compared as multisets (docs/specs.md "Set outputs"), so the
// one-ulp runs compare sorted rows (a near tie may swap two values' places).
bool set_values(const core::Spec& spec, const std::string& name) {
  for (const auto& t : spec.tensors)
    if (t.set && t.set->values == name) return true;
  return false;
}

std::vector<double> sorted_rows(std::vector<double> v, const std::vector<int64_t>& shape) {
  const size_t row = shape.empty() ? 1 : size_t(shape.back());
  auto before = [](double a, double b) { return std::isnan(a) ? false : std::isnan(b) ? true : a < b; };
  for (size_t i = 0; row > 0 && i + row <= v.size(); i += row)
    std::sort(v.begin() + long(i), v.begin() + long(i + row), before);
  return v;
}

// The outputs as a kernel writes them: rounded to the output dtype.
std::vector<unsigned char> rounded(const std::vector<double>& v, core::DType t) {
  std::vector<unsigned char> out(v.size() * core::dtype_size(t));
  for (size_t i = 0; i < v.size(); ++i) core::store_from_double(out.data(), t, i, v[i]);
  return out;
}

}  // namespace

void ToleranceSanity::check_representable(const Case& c, const Outputs& want, Findings& out) {
  for (const auto& [name, values] : want) {
    const auto key = std::pair{c.variant_index, name};
    if (m_reported.contains(key)) continue;
    const core::DType dt = c.variant->dtypes.at(name);
    const auto& shape = c.shapes.at(name);
    if (core::dtype_is_integer(dt)) {
      const auto [lo, hi] = integer_range(dt);
      for (size_t i = 0; i < values.size(); ++i) {
        const double v = values[i];
        if (std::isfinite(v) && v == std::floor(v) && v >= lo && v <= hi) continue;
        m_reported.insert(key);
        out.reference_error(c.tensor_path(name),
                            fmt::format("{}: element {} of {} is {:g}, which {} cannot hold: integer outputs "
                                        "must be whole numbers in the dtype's range",
                                        c.context(), index_text(shape, i), name, v, core::dtype_name(dt)));
        break;
      }
      continue;
    }
    const core::Tolerance& tol = c.variant->tolerance.at(name);
    const auto got = rounded(values, dt);
    auto cmp = eval::compare_output(got.data(), dt, values, tol, shape, name);
    if (cmp.ok()) continue;
    m_reported.insert(key);
    const size_t i = size_t(cmp.first_bad);
    out.spec_error(fmt::format("variants[{}].tolerance.{}", c.variant_index, name),
                   fmt::format("{}: the reference's own outputs rounded to {} are outside the tolerance ({}) on {} "
                               "of {} elements (first {}: {:.17g} rounds to {:.9g}): no kernel can meet it; "
                               "allow at least the rounding to {}",
                               c.context(), core::dtype_name(dt), tolerance_text(tol), cmp.mismatches, values.size(),
                               index_text(shape, i), values[i], core::load_as_double(got.data(), dt, i),
                               core::dtype_name(dt)));
  }
}

void ToleranceSanity::add_perturbed(const Case& c, const Outputs& want, const Outputs& moved) {
  for (const auto& [name, unsorted] : want) {
    const core::DType dt = c.variant->dtypes.at(name);
    const core::Tolerance& tol = c.variant->tolerance.at(name);
    if (exact(tol) || core::dtype_is_integer(dt)) continue;  // exact ops: see docs/specs.md
    const auto& shape = c.shapes.at(name);
    const bool as_set = set_values(*c.spec, name);
    const std::vector<double> w = as_set ? sorted_rows(unsorted, shape) : unsorted;
    const auto got = rounded(as_set ? sorted_rows(moved.at(name), shape) : moved.at(name), dt);
    auto cmp = eval::compare_output(got.data(), dt, w, tol, shape, name);
    Worst& s = m_worst[{c.variant_index, name}];
    s.runs++;
    s.elements += w.size();
    if (cmp.ok()) continue;
    s.violations += size_t(cmp.mismatches);
    const double share = double(cmp.mismatches) / double(w.size());
    if (share > s.share) {
      s.share = share;
      s.share_at = fmt::format("{} of {} elements on {}", cmp.mismatches, w.size(), c.context());
    }
    for (size_t i = 0; i < w.size(); ++i) {
      const double g = core::load_as_double(got.data(), dt, i), want_i = w[i];
      if (!std::isfinite(want_i)) continue;  // the comparator's NaN/Inf rules: honest kernels keep them
      if (!std::isfinite(g)) {
        s.non_finite = true;
        continue;
      }
      const double d = std::fabs(g - want_i), allowed = tol.atol + tol.rtol * std::fabs(want_i);
      if (d <= allowed) continue;
      const double ratio = allowed > 0 ? d / allowed : std::numeric_limits<double>::infinity();
      if (ratio > s.ratio) {
        s.ratio = ratio;
        s.ratio_at = fmt::format("element {} on {}: {:.9g} moves to {:.9g}", index_text(shape, i), c.context(),
                                 want_i, g);
      }
      s.need_atol = std::max(s.need_atol, d - tol.rtol * std::fabs(want_i));
      if (want_i != 0) s.need_rtol = std::max(s.need_rtol, (d - tol.atol) / std::fabs(want_i));
      else s.rtol_cannot = true;
    }
  }
}

void ToleranceSanity::report(const core::Spec& spec, Findings& out) const {
  for (const auto& [key, s] : m_worst) {
    if (s.violations == 0) continue;
    const core::Variant& var = spec.variants[key.first];
    const core::Tolerance& tol = var.tolerance.at(key.second);
    const bool widespread = s.share > m_widespread;
    std::string need = fmt::format("atol >= {:.2g} (at rtol {:g})", s.need_atol, tol.rtol);
    if (!s.rtol_cannot && s.need_rtol > 0) need += fmt::format(" or rtol >= {:.2g} (at atol {:g})", s.need_rtol, tol.atol);
    std::string worst = s.ratio > 0 ? fmt::format("; the worst, {:.3g} times the tolerance: {}", s.ratio, s.ratio_at) : "";
    std::string message = fmt::format(
        "inputs moved one ulp away from zero move {} outside the tolerance ({}) on {} of {} elements over {} test "
        "runs (most: {}){}{}; honest kernels need about {}{}",
        key.second, tolerance_text(tol), s.violations, s.elements, s.runs, s.share_at, worst,
        s.non_finite ? "; some finite outputs became NaN or Inf" : "", need,
        widespread ? "" : fmt::format(" (isolated: at most {:.2g} % of a run's elements, under {:g} %, e.g. "
                                      "cancellation where a kernel computing the same rounded operation is exact; "
                                      "review it)", 100 * s.share, 100 * m_widespread));
    const std::string field = fmt::format("variants[{}].tolerance.{}", key.first, key.second);
    if (widespread) out.spec_error(field, message);
    else out.spec_warning(field, message);
  }
}

}  // namespace kwb::speccheck::detail
