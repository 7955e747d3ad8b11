#include "eval/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kwb::eval {

namespace {

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  double pos = p * double(sorted.size() - 1);
  size_t lo = size_t(pos);
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

void mean_stdev(const std::vector<double>& v, double& mean, double& stdev) {
  mean = v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  stdev = v.size() > 1 ? std::sqrt(ss / double(v.size() - 1)) : 0;
}

}  // namespace

bool RelativeStderrCriterion::converged(const std::vector<double>& s) const {
  if (int(s.size()) < m_min) return false;
  double mean, stdev;
  mean_stdev(s, mean, stdev);
  if (mean <= 0) return true;
  return stdev / std::sqrt(double(s.size())) / mean * 100.0 < m_max_pct;
}

core::TimeStats summarize(std::vector<double> s) {
  core::TimeStats t;
  t.samples = int(s.size());
  if (s.empty()) return t;
  std::sort(s.begin(), s.end());
  double mean, stdev;
  mean_stdev(s, mean, stdev);
  t.mean_ns = mean;
  t.min_ns = s.front();
  t.max_ns = s.back();
  t.median_ns = percentile(s, 0.5);
  t.p10_ns = percentile(s, 0.1);
  t.p90_ns = percentile(s, 0.9);
  t.stdev_pct = mean > 0 ? stdev / mean * 100.0 : 0;
  t.mean_stderr_pct = mean > 0 ? stdev / std::sqrt(double(s.size())) / mean * 100.0 : 0;
  return t;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace kwb::eval
