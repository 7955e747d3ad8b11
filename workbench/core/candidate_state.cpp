#include "core/candidate_state.hpp"

#include <array>
#include <utility>

namespace kwb::core {

namespace {

constexpr std::array<std::pair<CandidateState, std::string_view>, 8> k_states = {{
    {CandidateState::queued, "queued"},
    {CandidateState::analyzing, "analyzing"},
    {CandidateState::compiling, "compiling"},
    {CandidateState::validating, "validating"},
    {CandidateState::benchmarking, "benchmarking"},
    {CandidateState::deciding, "deciding"},
    {CandidateState::done, "done"},
    {CandidateState::cancelled, "cancelled"},
}};

constexpr std::array<std::pair<ComparisonState, std::string_view>, 3> k_comparison_states = {{
    {ComparisonState::none, "none"},
    {ComparisonState::pending, "pending"},
    {ComparisonState::done, "done"},
}};

}  // namespace

std::string_view state_name(CandidateState s) {
  for (const auto& [state, name] : k_states)
    if (state == s) return name;
  return "queued";
}

std::optional<CandidateState> parse_state(std::string_view name) {
  for (const auto& [state, n] : k_states)
    if (n == name) return state;
  return std::nullopt;
}

bool is_terminal(CandidateState s) { return s == CandidateState::done || s == CandidateState::cancelled; }

bool legal_transition(CandidateState from, CandidateState to) {
  using S = CandidateState;
  if (is_terminal(from) || from == to) return false;
  if (to == S::done || to == S::cancelled || to == S::queued) return true;
  // The stages in order: forward only (a stage with nothing to do, such as a benchmark without
  // bench workloads on a remote worker, may be skipped).
  return int(to) > int(from);
}

std::string_view comparison_state_name(ComparisonState s) {
  for (const auto& [state, name] : k_comparison_states)
    if (state == s) return name;
  return "none";
}

std::optional<ComparisonState> parse_comparison_state(std::string_view name) {
  for (const auto& [state, n] : k_comparison_states)
    if (n == name) return state;
  return std::nullopt;
}

}  // namespace kwb::core
