// Choosing a tunable config from round-robin blocks (eval/config_choice.hpp): a config clearly
// faster wins whatever the declared order; among configs that cannot be told apart, the first
// declared wins, so noise never picks.
#include <gtest/gtest.h>

#include <random>

#include "eval/config_choice.hpp"

namespace kwb::eval {
namespace {

std::vector<std::vector<double>> rounds(const std::vector<double>& means, double noise_pct, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(1.0, noise_pct / 100);
  std::vector<std::vector<double>> out(static_cast<size_t>(n));
  for (auto& r : out)
    for (double m : means) r.push_back(m * noise(rng));
  return out;
}

TEST(ConfigChoice, AConfigFivePercentFasterWinsInEitherDeclaredOrder) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto fwd = choose_config(rounds({100, 95}, 1.0, 20, seed));
    EXPECT_EQ(fwd.winner, 1u) << "seed " << seed;
    auto rev = choose_config(rounds({95, 100}, 1.0, 20, seed));
    EXPECT_EQ(rev.winner, 0u) << "seed " << seed << ": the order of the configs changed the choice";
    EXPECT_EQ(fwd.rows[0].label, core::ConfigLabel::slower);
    EXPECT_GT(fwd.rows[0].vs_winner, 1.03);
    EXPECT_LE(fwd.rows[0].low, fwd.rows[0].vs_winner);
  }
}

TEST(ConfigChoice, AmongTiesTheFirstDeclaredWinsNotTheLuckiest) {
  int first = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    auto c = choose_config(rounds({100, 100, 100}, 2.0, 12, seed));
    first += c.winner == 0;
    for (const auto& row : c.rows)
      if (row.config != c.winner) EXPECT_EQ(row.label, core::ConfigLabel::tie) << "seed " << seed;
  }
  EXPECT_EQ(first, 30) << "identical configs: the minimum of noisy medians must not choose";
}

}  // namespace
}  // namespace kwb::eval
