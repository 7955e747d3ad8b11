#pragma once
// An interval for the median of paired ratios that stays valid however often it is looked at
// (docs/library.md "Stopping"): a comparison looks at its interval as blocks come in and stops
// once the answer is known, and a fixed-confidence interval looked at after every block would
// miss the true median far more often than its confidence says.
//
// The looks are a schedule of block counts n_0 < n_1 < ... (n_0 the smallest count at which an
// order-statistic interval can hold alpha_0, then about 25 % more blocks each time); look j
// spends alpha_j = alpha * 6 / (pi^2 (j + 1)^2) of the error, so the sum over every look is at
// most alpha: with probability at least 1 - alpha the interval of EVERY look holds the true
// median (a union bound), whichever look the comparison stops at and why. Between looks the
// interval is the last look's.
#include <cstddef>
#include <vector>

namespace kwb::eval {

// The median of `ratios` and the order-statistic interval [x_(k), x_(n+1-k)] holding the true
// median with at least `confidence` (the largest k with P(Binomial(n, 1/2) < k) <= (1 - c) / 2);
// [min, max] when n is too small for that confidence (the returned confidence says what it is).
struct MedianInterval {
  double median = 0, low = 0, high = 0, confidence = 0;
};
MedianInterval median_interval(std::vector<double> ratios, double confidence);

class SequentialInterval {
 public:
  // `confidence`: 1 - alpha, the guarantee over every look together.
  explicit SequentialInterval(double confidence);
  // The error spent at look j (0-based).
  double alpha_at(size_t look) const;
  // The block count of look j.
  size_t look_at(size_t look) const;
  // Whether `n` blocks is a look, and which (for n at or past the first look).
  bool is_look(size_t n) const;
  // The interval after `ratios.size()` blocks: at the last look reached (its confidence
  // 1 - alpha_j), or, before the first look, the [min, max] of what there is with `valid` false.
  struct Reading {
    MedianInterval interval;
    size_t look = 0;     // the look it was taken at (its index)
    bool valid = false;  // a look was reached: the interval holds with the sequence's guarantee
  };
  Reading read(const std::vector<double>& ratios) const;
  // The smallest block count at which an interval exists (the first look).
  size_t first_look() const { return look_at(0); }
  double confidence() const { return m_confidence; }

 private:
  double m_confidence;
  mutable std::vector<size_t> m_looks;  // grown on demand
};

}  // namespace kwb::eval
