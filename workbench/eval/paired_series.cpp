#include "eval/paired_series.hpp"

#include <algorithm>
#include <limits>

#include "eval/stats.hpp"

namespace kwb::eval {

PairedSeries::PairedSeries(double confidence, PairedRules rules, double precision_pct, int min_blocks)
    : m_sequence(confidence), m_rules(std::move(rules)), m_precision_pct(precision_pct), m_min_blocks(min_blocks) {}

void PairedSeries::add(const std::vector<double>& a, const std::vector<double>& b, double wall_s) {
  const double ma = median_of(a), mb = median_of(b);
  if (ma > 0 && mb > 0) m_ratios.push_back(mb / ma);
  m_candidate.insert(m_candidate.end(), a.begin(), a.end());
  m_incumbent.insert(m_incumbent.end(), b.begin(), b.end());
  m_timed_s += wall_s;
}

core::Comparison PairedSeries::comparison() const {
  core::Comparison c;
  auto reading = m_sequence.read(m_ratios);
  c.ratio = median_of(m_ratios);
  c.low = reading.interval.low;
  c.high = reading.interval.high;
  // The estimate is over every block; the interval is the last look's (fewer blocks): the
  // decision rule requires the interval to hold its estimate, so widen it to the estimate.
  c.low = std::min(c.low, c.ratio);
  c.high = std::max(c.high, c.ratio);
  c.confidence = reading.valid ? m_sequence.confidence() : reading.interval.confidence;
  c.blocks = blocks();
  c.samples = int(m_candidate.size());
  c.candidate_ns = median_of(m_candidate);
  c.incumbent_ns = median_of(m_incumbent);
  c.block_ratios = m_ratios;
  c.candidate_samples_ns = m_candidate;
  c.incumbent_samples_ns = m_incumbent;
  if (!reading.valid) {  // no look reached yet: no claim either way
    c.low = 0;
    c.high = std::numeric_limits<double>::max();
  }
  c.label = m_rules.label ? m_rules.label(c.low, c.high) : "";
  return c;
}

bool PairedSeries::settled() const {
  if (m_ratios.size() < m_sequence.first_look() || blocks() < m_min_blocks) return false;
  const core::Comparison c = comparison();
  const bool precise = m_precision_pct <= 0 || (c.high <= c.ratio * (1 + m_precision_pct / 100) &&
                                                c.low >= c.ratio * (1 - m_precision_pct / 100));
  return precise && !(m_rules.needs_more && m_rules.needs_more(c));
}

}  // namespace kwb::eval
