#pragma once
// The named kinds of a timing (kwb.verdict.v1, docs/verdict.md): why a workload's timing stopped
// and which clock took it, an interleaved comparison's label and why it stopped, and a tunable
// config's label in the choice among configs. One table of
// names each; core::TimeStats and core::Comparison carry the names as strings (they are written
// into the verdict as they are), and code that decides by them uses these enums.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kwb::core {

// TimeStats::stop_reason (eval/benchmark.hpp): the stopping criterion held, the budget ran out
// with enough samples, the hard budget ran out without, or the sample cap.
enum class TimingStop { converged, budget, hard_budget, max_samples };
std::string_view timing_stop_name(TimingStop s);
std::optional<TimingStop> parse_timing_stop(std::string_view name);

// TimeStats::clock: the trusted side's steady clock (CPU), CUDA events, CUPTI kernel durations,
// or a mix of the last two (a workload whose configs were timed by different clocks).
enum class TimingClock { steady_clock, cuda_event, cupti_kernel, mixed };
std::string_view timing_clock_name(TimingClock c);
std::optional<TimingClock> parse_timing_clock(std::string_view name);
// cupti_kernel or mixed: some samples are kernel durations without the launch around them.
bool timed_by_cupti(TimingClock c);

// Comparison::label (library/decision.hpp): the interval of the ratio lies above 1, below 1,
// within the equivalence margin, or straddles 1 beyond it.
enum class ComparisonLabel { faster, slower, same, undecided };
std::string_view comparison_label_name(ComparisonLabel l);
std::optional<ComparisonLabel> parse_comparison_label(std::string_view name);
std::vector<std::string> comparison_label_names();  // faster, slower, same, undecided

// Comparison::stop_reason (eval/paired_timing.hpp): the stopping rule settled it, the budget ran
// out, or the block cap.
enum class ComparisonStop { settled, budget, max_blocks };
std::string_view comparison_stop_name(ComparisonStop s);
std::optional<ComparisonStop> parse_comparison_stop(std::string_view name);

// ConfigTime::label (core/verdict.hpp, eval/config_choice.hpp): the config chosen, one slower
// than it by its interval, or one that cannot be told apart from it (the interval holds 1).
enum class ConfigLabel { winner, slower, tie };
std::string_view config_label_name(ConfigLabel l);
std::optional<ConfigLabel> parse_config_label(std::string_view name);
std::vector<std::string> config_label_names();  // winner, slower, tie

}  // namespace kwb::core
