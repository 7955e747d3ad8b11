#include "library/decision.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace kwb::library {

namespace {

using Label = core::ComparisonLabel;

double regression_floor(const Policy& p) { return 1.0 - p.max_regression_pct / 100.0; }
double win_floor(const Policy& p) { return 1.0 + p.min_gain_pct / 100.0; }

std::string interval(const core::Comparison& c) {
  return fmt::format("{:.3f}x [{:.3f}, {:.3f}] over {} blocks", c.ratio, c.low, c.high, c.blocks);
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

Policy policy_for(const Policy& p, const std::string& device_key) {
  Policy out = p;
  if (device_key.rfind("cuda", 0) != 0) {
    out.min_gain_pct = std::max(p.min_gain_pct, p.cpu_min_gain_pct);
    out.same_margin_pct = std::max(p.same_margin_pct, p.cpu_same_margin_pct);
  }
  return out;
}

core::ComparisonLabel label_interval(double low, double high, const Policy& p) {
  const double up = 1.0 + p.same_margin_pct / 100.0;
  if (low >= 1.0 / up && high <= up) return Label::same;
  if (low > 1.0) return Label::faster;
  if (high < 1.0) return Label::slower;
  return Label::undecided;
}

std::string label_of(double low, double high, const Policy& p) {
  return std::string(core::comparison_label_name(label_interval(low, high, p)));
}

bool needs_more_blocks(const core::Comparison& c, const Policy& p) {
  switch (core::parse_comparison_label(c.label).value_or(Label::undecided)) {
    case Label::same: return false;
    case Label::faster: return c.low < win_floor(p);
    case Label::slower: return c.low < regression_floor(p) && c.high >= regression_floor(p);
    case Label::undecided: return true;
  }
  return true;
}

core::Decision decide(const std::vector<WorkloadComparison>& comparisons, const Policy& p) {
  core::Decision d;
  if (comparisons.empty()) {
    d.reason = "no bench workload was compared";
    return d;
  }
  double log_sum = 0;
  std::vector<std::string> malformed;
  std::string first_regression, first_undecided;
  for (const auto& [name, c] : comparisons) {
    const auto label = core::parse_comparison_label(c.label);
    if (!(c.ratio > 0) || !(c.low <= c.ratio) || !(c.ratio <= c.high) || label != label_interval(c.low, c.high, p)) {
      malformed.push_back(name);
      continue;
    }
    log_sum += std::log(c.ratio);
    if (*label == Label::undecided) {
      d.undecided.push_back(name);
      if (first_undecided.empty()) first_undecided = name + " " + interval(c);
    }
    if (c.low < regression_floor(p)) {
      d.regressions.push_back(name);
      if (first_regression.empty())
        first_regression = fmt::format("{} {} (slower than the {:.0f}% allowed{})", name, interval(c),
                                       p.max_regression_pct, c.ratio < regression_floor(p) ? "" : " by its interval");
    }
    if (*label == Label::faster && c.low >= win_floor(p)) d.wins.push_back(name);
  }
  if (!malformed.empty()) {
    d.reason = "not promotable: malformed comparison of " + join(malformed) + " (its interval must hold its estimate)";
    return d;
  }
  const double geomean = std::exp(log_sum / double(comparisons.size()));
  if (!d.regressions.empty()) {
    d.reason = fmt::format("not promotable: {:.3f}x geomean, {}", geomean, first_regression);
  } else if (!d.undecided.empty()) {
    d.reason = fmt::format("not promotable: too noisy to decide: {} (interval straddles 1 beyond the {:.0f}% margin); "
                           "evaluate again on a quieter machine or with a longer decide budget",
                           first_undecided, p.same_margin_pct);
  } else if (d.wins.empty()) {
    d.reason = fmt::format("not promotable: {:.3f}x geomean, no bench workload faster by at least {:.0f}% by its "
                           "whole interval", geomean, p.min_gain_pct);
  } else if (!(geomean > 1.0)) {
    d.reason = fmt::format("not promotable: {:.3f}x geomean (faster on {}, but not overall)", geomean, join(d.wins));
  } else {
    d.promotable = true;
    d.reason = fmt::format("promotable: {:.3f}x geomean, faster on {} of {} bench workloads ({})", geomean,
                           d.wins.size(), comparisons.size(), join(d.wins));
  }
  return d;
}

}  // namespace kwb::library
