#pragma once
// Timing statistics and the pluggable stopping criterion (like nvbench's stopping_criterion).
#include <vector>

#include "core/verdict.hpp"

namespace kwb::eval {

class StoppingCriterion {
 public:
  virtual ~StoppingCriterion() = default;
  virtual bool converged(const std::vector<double>& samples_ns) const = 0;
};

// Stops when the relative standard error of the mean is below `max_stderr_pct` with at least
// `min_samples` samples (docs/evaluation.md "Timing": 0.5 % and 10 on the CPU).
class RelativeStderrCriterion : public StoppingCriterion {
 public:
  RelativeStderrCriterion(double max_stderr_pct = 0.5, int min_samples = 10)
      : m_max_pct(max_stderr_pct), m_min(min_samples) {}
  bool converged(const std::vector<double>& samples_ns) const override;

 private:
  double m_max_pct;
  int m_min;
};

// Median, mean, min, max, p10, p90, stdev % and stderr % of the samples (nanoseconds).
core::TimeStats summarize(std::vector<double> samples_ns);

// The median of `values` (the mean of the middle two for an even count); 0 for none.
double median_of(std::vector<double> values);

}  // namespace kwb::eval
