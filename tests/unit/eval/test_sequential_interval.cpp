// The interval of paired ratios that stays valid under repeated looks (eval/sequential_interval.hpp)
// and the block-pair series built on it (eval/paired_series.hpp). The statistical claims are
// checked by simulation with enough trials: looked at after every block, a fixed 99 % interval
// misses the true median far more often than 1 %; the sequence's looks together do not.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "eval/paired_series.hpp"
#include "eval/sequential_interval.hpp"

namespace kwb::eval {
namespace {

TEST(SequentialInterval, TheFirstLookIsTheFewestBlocksThatCanHoldItsShareOfTheError) {
  SequentialInterval s(0.99);
  // alpha_0 = 0.01 * 6 / pi^2 = 0.00608: all of n ratios on one side has probability 2 * 2^-n.
  EXPECT_EQ(s.first_look(), 9u);
  EXPECT_NEAR(s.alpha_at(0), 0.01 * 6 / (M_PI * M_PI), 1e-12);
  double spent = 0;
  for (size_t j = 0; j < 10000; ++j) spent += s.alpha_at(j);
  EXPECT_LT(spent, 0.01) << "the looks together spend at most alpha";
  size_t previous = 0;
  for (size_t j = 0; j < 30; ++j) {
    EXPECT_GT(s.look_at(j), previous);
    EXPECT_TRUE(s.is_look(s.look_at(j)));
    previous = s.look_at(j);
  }
  EXPECT_FALSE(s.is_look(10));
  EXPECT_EQ(SequentialInterval(0.9).first_look(), 6u);
}

TEST(SequentialInterval, BeforeTheFirstLookNothingIsClaimed) {
  SequentialInterval s(0.99);
  auto r = s.read({1.2, 1.21, 1.19});
  EXPECT_FALSE(r.valid);
  auto later = s.read(std::vector<double>(12, 1.2));
  EXPECT_TRUE(later.valid);
  EXPECT_EQ(later.look, 1u);  // 12 blocks: the second look
}

// The chance that ANY look's interval misses the true median, over trials of 200 blocks of
// noisy ratios around a known median.
double miss_rate(bool sequential, int trials) {
  std::mt19937_64 rng(12345);
  std::lognormal_distribution<double> noise(0.0, 0.02);  // median exactly 1
  SequentialInterval seq(0.99);
  int missed = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> ratios;
    bool miss = false;
    for (int n = 1; n <= 200 && !miss; ++n) {
      ratios.push_back(noise(rng));
      MedianInterval mi;
      if (sequential) {
        if (!seq.is_look(size_t(n))) continue;
        mi = seq.read(ratios).interval;
      } else {
        if (n < 9) continue;
        mi = median_interval(ratios, 0.99);  // a fixed 99 % interval looked at after every block
      }
      miss = mi.low > 1.0 || mi.high < 1.0;
    }
    missed += miss;
  }
  return double(missed) / trials;
}

TEST(SequentialInterval, RepeatedLooksDoNotInflateTheErrorWhereAFixedIntervalDoes) {
  const double fixed = miss_rate(false, 2000);
  const double sequential = miss_rate(true, 2000);
  EXPECT_GT(fixed, 0.03) << "a fixed 99 % interval looked at every block misses more often (the problem)";
  EXPECT_LE(sequential, 0.01) << "the sequence's guarantee over every look";
}

PairedRules rules(double margin = 0.02) {
  return {[margin](double lo, double hi) {
            if (lo >= 1 / (1 + margin) && hi <= 1 + margin) return std::string("same");
            if (lo > 1) return std::string("faster");
            if (hi < 1) return std::string("slower");
            return std::string("undecided");
          },
          [](const core::Comparison& c) { return c.label == "undecided"; }};
}

TEST(PairedSeries, AClearWinSettlesAtTheFirstLookAndATieTakesMore) {
  PairedSeries win(0.99, rules());
  for (int i = 0; i < 8; ++i) win.add({100, 101, 99}, {110, 111, 109}, 0.01);
  EXPECT_FALSE(win.settled()) << "no claim before the first look";
  EXPECT_EQ(win.comparison().label, "undecided");
  win.add({100, 101, 99}, {110, 111, 109}, 0.01);
  EXPECT_TRUE(win.settled());
  auto c = win.comparison();
  EXPECT_EQ(c.label, "faster");
  EXPECT_NEAR(c.ratio, 1.1, 1e-9);
  EXPECT_LE(c.low, c.ratio);
  EXPECT_GE(c.high, c.ratio);
  EXPECT_EQ(c.blocks, 9);
  EXPECT_EQ(c.samples, 27);

  PairedSeries tie(0.99, rules(0.005));
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(100, 1.5);
  for (int i = 0; i < 9; ++i) tie.add({noise(rng)}, {noise(rng)}, 0.01);
  EXPECT_FALSE(tie.settled()) << "a near-tie against a tight margin needs more blocks";
}

}  // namespace
}  // namespace kwb::eval
