// The named kinds of a timing and of a config choice (core/timing_names.hpp): each has one name that parses back, the
// verdict's names exactly, and an unknown name parses to none.
#include <gtest/gtest.h>

#include "core/timing_names.hpp"

namespace kwb::core {
namespace {

TEST(TimingNames, EveryKindHasOneNameThatParsesBack) {
  for (auto s : {TimingStop::converged, TimingStop::budget, TimingStop::hard_budget, TimingStop::max_samples})
    EXPECT_EQ(parse_timing_stop(timing_stop_name(s)), s) << timing_stop_name(s);
  for (auto c : {TimingClock::steady_clock, TimingClock::cuda_event, TimingClock::cupti_kernel, TimingClock::mixed})
    EXPECT_EQ(parse_timing_clock(timing_clock_name(c)), c) << timing_clock_name(c);
  for (auto l : {ComparisonLabel::faster, ComparisonLabel::slower, ComparisonLabel::same, ComparisonLabel::undecided})
    EXPECT_EQ(parse_comparison_label(comparison_label_name(l)), l) << comparison_label_name(l);
  for (auto s : {ComparisonStop::settled, ComparisonStop::budget, ComparisonStop::max_blocks})
    EXPECT_EQ(parse_comparison_stop(comparison_stop_name(s)), s) << comparison_stop_name(s);
  for (auto l : {ConfigLabel::winner, ConfigLabel::slower, ConfigLabel::tie})
    EXPECT_EQ(parse_config_label(config_label_name(l)), l) << config_label_name(l);
}

TEST(TimingNames, TheNamesAreTheVerdictsNames) {
  // kwb.verdict.v1 (docs/verdict.md): these strings are what clients read.
  EXPECT_EQ(timing_stop_name(TimingStop::hard_budget), "hard_budget");
  EXPECT_EQ(timing_stop_name(TimingStop::max_samples), "max_samples");
  EXPECT_EQ(timing_clock_name(TimingClock::steady_clock), "steady_clock");
  EXPECT_EQ(timing_clock_name(TimingClock::cupti_kernel), "cupti_kernel");
  EXPECT_EQ(comparison_label_names(), (std::vector<std::string>{"faster", "slower", "same", "undecided"}));
  EXPECT_EQ(comparison_stop_name(ComparisonStop::max_blocks), "max_blocks");
  EXPECT_EQ(config_label_names(), (std::vector<std::string>{"winner", "slower", "tie"}));
  EXPECT_TRUE(timed_by_cupti(TimingClock::mixed));
  EXPECT_TRUE(timed_by_cupti(TimingClock::cupti_kernel));
  EXPECT_FALSE(timed_by_cupti(TimingClock::cuda_event));
  EXPECT_FALSE(timed_by_cupti(TimingClock::steady_clock));
}

TEST(TimingNames, AnUnknownNameParsesToNone) {
  EXPECT_FALSE(parse_timing_stop("timeout"));
  EXPECT_FALSE(parse_timing_clock("cupti"));  // the --gpu-clock option's word, not a verdict's clock
  EXPECT_FALSE(parse_comparison_label("Faster"));
  EXPECT_FALSE(parse_comparison_stop(""));
  EXPECT_FALSE(parse_config_label("chosen"));
}

}  // namespace
}  // namespace kwb::core
