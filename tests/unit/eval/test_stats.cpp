#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "eval/stats.hpp"
#include "util/random.hpp"

namespace kwb::eval {
namespace {

TEST(Summarize, KnownVector) {
  // 1..10 in scrambled order: summarize sorts.
  auto t = summarize({7, 3, 10, 1, 5, 9, 2, 8, 4, 6});
  EXPECT_EQ(t.samples, 10);
  EXPECT_DOUBLE_EQ(t.min_ns, 1);
  EXPECT_DOUBLE_EQ(t.max_ns, 10);
  EXPECT_DOUBLE_EQ(t.mean_ns, 5.5);
  EXPECT_DOUBLE_EQ(t.median_ns, 5.5);
  EXPECT_NEAR(t.p10_ns, 1.9, 1e-12);  // linear interpolation between order statistics
  EXPECT_NEAR(t.p90_ns, 9.1, 1e-12);
  const double stdev = std::sqrt(82.5 / 9.0);  // sample standard deviation of 1..10
  EXPECT_NEAR(t.stdev_pct, stdev / 5.5 * 100.0, 1e-9);
  EXPECT_NEAR(t.mean_stderr_pct, stdev / std::sqrt(10.0) / 5.5 * 100.0, 1e-9);
}

TEST(Summarize, OddCountMedianIsTheMiddleSample) {
  auto t = summarize({100, 300, 200});
  EXPECT_DOUBLE_EQ(t.median_ns, 200);
  EXPECT_DOUBLE_EQ(t.p10_ns, 120);
  EXPECT_DOUBLE_EQ(t.p90_ns, 280);
}

TEST(Summarize, SingleSample) {
  auto t = summarize({42});
  EXPECT_EQ(t.samples, 1);
  EXPECT_EQ(t.median_ns, 42);
  EXPECT_EQ(t.p10_ns, 42);
  EXPECT_EQ(t.p90_ns, 42);
  EXPECT_EQ(t.stdev_pct, 0);
  EXPECT_EQ(t.mean_stderr_pct, 0);
}

TEST(Summarize, Empty) {
  auto t = summarize({});
  EXPECT_EQ(t.samples, 0);
  EXPECT_EQ(t.median_ns, 0);
  EXPECT_EQ(t.mean_ns, 0);
  EXPECT_EQ(t.stdev_pct, 0);
}

TEST(Summarize, ConstantSamplesHaveZeroSpread) {
  auto t = summarize(std::vector<double>(50, 1234.0));
  EXPECT_EQ(t.median_ns, 1234.0);
  EXPECT_EQ(t.stdev_pct, 0);
  EXPECT_EQ(t.mean_stderr_pct, 0);
}

TEST(RelativeStderrCriterion, NeedsTheMinimumNumberOfSamples) {
  RelativeStderrCriterion c;  // 0.5 %, 10 samples
  EXPECT_FALSE(c.converged({}));
  EXPECT_FALSE(c.converged(std::vector<double>(9, 1000.0)));
  EXPECT_TRUE(c.converged(std::vector<double>(10, 1000.0)));
  RelativeStderrCriterion c20(0.5, 20);
  EXPECT_FALSE(c20.converged(std::vector<double>(19, 1000.0)));
  EXPECT_TRUE(c20.converged(std::vector<double>(20, 1000.0)));
}

TEST(RelativeStderrCriterion, NoisySamplesDoNotConverge) {
  RelativeStderrCriterion c;
  std::vector<double> s;
  for (int i = 0; i < 40; ++i) s.push_back(i % 2 ? 1000.0 : 3000.0);  // stderr ~8 %
  EXPECT_FALSE(c.converged(s));
}

TEST(RelativeStderrCriterion, SmallNoiseConvergesWithEnoughSamples) {
  RelativeStderrCriterion c;
  util::Rng rng(3);
  std::vector<double> s;
  for (int i = 0; i < 10; ++i) s.push_back(1000.0 * (1 + 0.05 * rng.normal()));
  // 5 % noise, 10 samples: stderr ~1.6 %, above 0.5 %.
  EXPECT_FALSE(c.converged(s));
  for (int i = 0; i < 2000; ++i) s.push_back(1000.0 * (1 + 0.05 * rng.normal()));
  // 2010 samples: stderr ~0.11 %.
  EXPECT_TRUE(c.converged(s));
}

TEST(RelativeStderrCriterion, ThresholdIsConfigurable) {
  std::vector<double> s;
  for (int i = 0; i < 40; ++i) s.push_back(i % 2 ? 1000.0 : 3000.0);
  EXPECT_TRUE(RelativeStderrCriterion(20.0, 10).converged(s));
  EXPECT_FALSE(RelativeStderrCriterion(1.0, 10).converged(s));
}

}  // namespace
}  // namespace kwb::eval
