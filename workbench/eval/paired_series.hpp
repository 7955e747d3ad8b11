#pragma once
// The block pairs of one bench workload's interleaved comparison (paired_timing.hpp): per pair
// the ratio of the two sides' block medians, all their samples, and what the stopping rule makes
// of them: the interval of the last look of a SequentialInterval (valid under repeated looks),
// labelled by the policy (library/decision.hpp). A series is filled in the candidate's benchmark
// stage (its bench timing is the comparison's first blocks) and carried on after its verdict.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/verdict.hpp"
#include "eval/sequential_interval.hpp"

namespace kwb::eval {

// Labels an interval ("faster", ...) and says whether it needs more blocks (library/decision.hpp).
struct PairedRules {
  std::function<std::string(double low, double high)> label;
  std::function<bool(const core::Comparison&)> needs_more;
};

class PairedSeries {
 public:
  PairedSeries(double confidence, PairedRules rules, double precision_pct = 0, int min_blocks = 0);
  // One block pair: each side's per-call times (ns) and the pair's wall time.
  void add(const std::vector<double>& candidate_ns, const std::vector<double>& incumbent_ns, double wall_s);
  // The comparison as the last look reads it (before the first look: its [min, max], labelled
  // undecided-or-worse by the rules, and never settled).
  core::Comparison comparison() const;
  // A look was reached, at least min_blocks are in, the rules need no more blocks (and, with
  // precision_pct, the interval lies within +-precision_pct % of the ratio).
  bool settled() const;
  int blocks() const { return int(m_ratios.size()); }
  double timed_s() const { return m_timed_s; }
  const std::vector<double>& candidate_samples() const { return m_candidate; }
  const std::vector<double>& incumbent_samples() const { return m_incumbent; }
  const std::vector<double>& ratios() const { return m_ratios; }
  const SequentialInterval& sequence() const { return m_sequence; }

 private:
  SequentialInterval m_sequence;
  PairedRules m_rules;
  double m_precision_pct;
  int m_min_blocks;
  std::vector<double> m_ratios, m_candidate, m_incumbent;
  double m_timed_s = 0;
};

}  // namespace kwb::eval
