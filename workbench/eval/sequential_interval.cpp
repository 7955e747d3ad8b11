#include "eval/sequential_interval.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace kwb::eval {

MedianInterval median_interval(std::vector<double> ratios, double confidence) {
  MedianInterval out;
  if (ratios.empty()) return out;
  std::sort(ratios.begin(), ratios.end());
  const size_t n = ratios.size();
  out.median = n % 2 ? ratios[n / 2] : 0.5 * (ratios[n / 2 - 1] + ratios[n / 2]);
  // cdf[k] = P(X <= k) for X ~ Binomial(n, 1/2), accumulated term by term.
  const double tail = (1.0 - confidence) / 2.0;
  double term = std::pow(0.5, double(n)), below = 0;  // P(X = 0), P(X < k)
  size_t k = 0;                                       // 1-based order statistic; 0: none fits
  for (size_t j = 1; j <= n / 2; ++j) {
    below += term;  // P(X < j) = P(X <= j - 1)
    if (below > tail) break;
    k = j;
    term *= double(n - (j - 1)) / double(j);
  }
  if (k == 0) {
    out.low = ratios.front();
    out.high = ratios.back();
    out.confidence = 1.0 - 2.0 * std::pow(0.5, double(n));
    return out;
  }
  out.low = ratios[k - 1];
  out.high = ratios[n - k];
  // The interval's exact coverage: 1 - 2 P(X < k).
  double p = 0, t = std::pow(0.5, double(n));
  for (size_t j = 0; j < k; ++j) {
    p += t;
    t *= double(n - j) / double(j + 1);
  }
  out.confidence = 1.0 - 2.0 * p;
  return out;
}

SequentialInterval::SequentialInterval(double confidence) : m_confidence(confidence) {}

double SequentialInterval::alpha_at(size_t look) const {
  const double alpha = 1.0 - m_confidence;
  const double j = double(look + 1);
  return alpha * 6.0 / (std::numbers::pi * std::numbers::pi * j * j);
}

size_t SequentialInterval::look_at(size_t look) const {
  if (m_looks.empty()) {
    // The first look: the fewest blocks whose [min, max] holds the median with 1 - alpha_0
    // (P(all n ratios on one side) = 2 * 2^-n <= alpha_0).
    size_t n = 1;
    while (2.0 * std::pow(0.5, double(n)) > alpha_at(0) && n < 200) ++n;
    m_looks.push_back(n);
  }
  while (m_looks.size() <= look)
    m_looks.push_back(std::max(m_looks.back() + 1, size_t(std::ceil(double(m_looks.back()) * 1.25))));
  return m_looks[look];
}

bool SequentialInterval::is_look(size_t n) const {
  for (size_t j = 0;; ++j) {
    const size_t at = look_at(j);
    if (at == n) return true;
    if (at > n) return false;
  }
}

SequentialInterval::Reading SequentialInterval::read(const std::vector<double>& ratios) const {
  Reading r;
  const size_t n = ratios.size();
  if (n < first_look()) {
    r.interval = median_interval(ratios, 1.0);  // [min, max] of what there is
    r.valid = false;
    return r;
  }
  size_t j = 0;
  while (look_at(j + 1) <= n) ++j;
  // The interval of look j, over the ratios it saw.
  std::vector<double> seen(ratios.begin(), ratios.begin() + std::ptrdiff_t(look_at(j)));
  r.interval = median_interval(std::move(seen), 1.0 - alpha_at(j));
  r.look = j;
  r.valid = true;
  return r;
}

}  // namespace kwb::eval
