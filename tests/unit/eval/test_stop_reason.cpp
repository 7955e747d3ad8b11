// When timing stops (eval/benchmark.hpp): the criterion after the minimum window, the budget after
// the sample floor, the hard budget, the sample cap; by the enum and by its name.
#include <gtest/gtest.h>

#include <vector>

#include "eval/benchmark.hpp"

namespace kwb::eval {
namespace {

struct Always : StoppingCriterion {
  bool converged(const std::vector<double>&) const override { return true; }
};
struct Never : StoppingCriterion {
  bool converged(const std::vector<double>&) const override { return false; }
};

const std::vector<double> k_samples(40, 1000.0);

TEST(StopReason, ConvergedStopsAtOnceWithoutAMinimumTime) {
  BenchmarkConfig cfg;
  EXPECT_EQ(stop_reason(k_samples, 0.001, cfg, Always{}), "converged");
}

TEST(StopReason, ConvergedWaitsForTheMinimumTimedWindow) {
  BenchmarkConfig cfg;
  cfg.min_timed_ms = 50;
  EXPECT_EQ(stop_reason(k_samples, 0.020, cfg, Always{}), std::nullopt);
  EXPECT_EQ(stop_reason(k_samples, 0.050, cfg, Always{}), "converged");
}

TEST(StopReason, TheMinimumIsCappedByTheBudget) {
  BenchmarkConfig cfg;
  cfg.min_timed_ms = 50;
  cfg.budget_ms = 10;
  EXPECT_EQ(stop_reason(k_samples, 0.011, cfg, Always{}), "converged");
}

TEST(StopReason, BudgetAndMaxSamplesStopUnconvergedTiming) {
  BenchmarkConfig cfg;
  cfg.budget_ms = 100;
  EXPECT_EQ(stop_reason(k_samples, 0.050, cfg, Never{}), std::nullopt);
  EXPECT_EQ(stop_reason(k_samples, 0.100, cfg, Never{}), "budget");
  cfg.max_samples = 40;
  EXPECT_EQ(stop_reason(k_samples, 0.050, cfg, Never{}), "max_samples");
}

TEST(StopReason, TheBudgetWaitsForTheSampleFloor) {
  BenchmarkConfig cfg;
  cfg.budget_ms = 100;
  cfg.min_samples = 10;
  const std::vector<double> three(3, 1000.0), ten(10, 1000.0);
  EXPECT_EQ(stop_reason(three, 0.150, cfg, Never{}), std::nullopt);  // past the budget, 3 samples
  EXPECT_EQ(stop_reason(ten, 0.150, cfg, Never{}), "budget");
  cfg.hard_budget_ms = 1000;
  EXPECT_EQ(stop_reason(three, 0.999, cfg, Never{}), std::nullopt);
  EXPECT_EQ(stop_reason(three, 1.000, cfg, Never{}), "hard_budget");
}

TEST(StopReason, TheNameIsTheEnumsName) {
  BenchmarkConfig cfg;
  cfg.budget_ms = 100;
  EXPECT_EQ(timing_stop(k_samples, 0.001, cfg, Always{}), core::TimingStop::converged);
  EXPECT_EQ(timing_stop(k_samples, 0.100, cfg, Never{}), core::TimingStop::budget);
  EXPECT_EQ(timing_stop(k_samples, 0.050, cfg, Never{}), std::nullopt);
  EXPECT_EQ(stop_reason(k_samples, 0.100, cfg, Never{}), std::string(core::timing_stop_name(core::TimingStop::budget)));
}

}  // namespace
}  // namespace kwb::eval
