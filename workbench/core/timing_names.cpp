#include "core/timing_names.hpp"

#include <array>
#include <utility>

namespace kwb::core {

namespace {

constexpr std::array<std::pair<TimingStop, std::string_view>, 4> k_timing_stops = {{
    {TimingStop::converged, "converged"},
    {TimingStop::budget, "budget"},
    {TimingStop::hard_budget, "hard_budget"},
    {TimingStop::max_samples, "max_samples"},
}};

constexpr std::array<std::pair<TimingClock, std::string_view>, 4> k_timing_clocks = {{
    {TimingClock::steady_clock, "steady_clock"},
    {TimingClock::cuda_event, "cuda_event"},
    {TimingClock::cupti_kernel, "cupti_kernel"},
    {TimingClock::mixed, "mixed"},
}};

constexpr std::array<std::pair<ComparisonLabel, std::string_view>, 4> k_comparison_labels = {{
    {ComparisonLabel::faster, "faster"},
    {ComparisonLabel::slower, "slower"},
    {ComparisonLabel::same, "same"},
    {ComparisonLabel::undecided, "undecided"},
}};

constexpr std::array<std::pair<ComparisonStop, std::string_view>, 3> k_comparison_stops = {{
    {ComparisonStop::settled, "settled"},
    {ComparisonStop::budget, "budget"},
    {ComparisonStop::max_blocks, "max_blocks"},
}};

constexpr std::array<std::pair<ConfigLabel, std::string_view>, 3> k_config_labels = {{
    {ConfigLabel::winner, "winner"},
    {ConfigLabel::slower, "slower"},
    {ConfigLabel::tie, "tie"},
}};

template <typename E, size_t N>
std::vector<std::string> names_in(const std::array<std::pair<E, std::string_view>, N>& table) {
  std::vector<std::string> out;
  for (const auto& [e, name] : table) out.emplace_back(name);
  return out;
}

template <typename E, size_t N>
std::string_view name_in(const std::array<std::pair<E, std::string_view>, N>& table, E value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return table.front().second;
}

template <typename E, size_t N>
std::optional<E> parse_in(const std::array<std::pair<E, std::string_view>, N>& table, std::string_view name) {
  for (const auto& [e, n] : table)
    if (n == name) return e;
  return std::nullopt;
}

}  // namespace

std::string_view timing_stop_name(TimingStop s) { return name_in(k_timing_stops, s); }
std::optional<TimingStop> parse_timing_stop(std::string_view name) { return parse_in(k_timing_stops, name); }

std::string_view timing_clock_name(TimingClock c) { return name_in(k_timing_clocks, c); }
std::optional<TimingClock> parse_timing_clock(std::string_view name) { return parse_in(k_timing_clocks, name); }
bool timed_by_cupti(TimingClock c) { return c == TimingClock::cupti_kernel || c == TimingClock::mixed; }

std::string_view comparison_label_name(ComparisonLabel l) { return name_in(k_comparison_labels, l); }
std::optional<ComparisonLabel> parse_comparison_label(std::string_view name) {
  return parse_in(k_comparison_labels, name);
}
std::vector<std::string> comparison_label_names() { return names_in(k_comparison_labels); }

std::string_view comparison_stop_name(ComparisonStop s) { return name_in(k_comparison_stops, s); }
std::optional<ComparisonStop> parse_comparison_stop(std::string_view name) { return parse_in(k_comparison_stops, name); }

std::string_view config_label_name(ConfigLabel l) { return name_in(k_config_labels, l); }
std::optional<ConfigLabel> parse_config_label(std::string_view name) { return parse_in(k_config_labels, name); }
std::vector<std::string> config_label_names() { return names_in(k_config_labels); }

}  // namespace kwb::core
