#pragma once
// A candidate's life as the daemon records it (docs/architecture.md "Life of a candidate"): the
// state of its evaluation, and the state of its comparison with the incumbent, which follows the
// verdict as a part of its own. The string forms live here only (the store's CHECK constraint,
// the API's `state` and `comparison.state`, the CLI's --state filter).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kwb::core {

enum class CandidateState { queued, analyzing, compiling, validating, benchmarking, deciding, done, cancelled };

std::string_view state_name(CandidateState s);
std::optional<CandidateState> parse_state(std::string_view name);
// done or cancelled: nothing more happens to the evaluation (a pending comparison may follow done).
bool is_terminal(CandidateState s);
// Whether the ledger may move a candidate from `from` to `to`:
//  - queued -> analyzing (an attempt starts), then forward through compiling, validating,
//    benchmarking and deciding (a stage may be skipped, never gone back to);
//  - any state not terminal -> done (a verdict can end any stage) or cancelled;
//  - any state not terminal -> queued (requeued at start-up after a crash mid-stage);
//  - a terminal state never moves; a state never moves to itself.
bool legal_transition(CandidateState from, CandidateState to);

// The second part of a candidate (docs/library.md "Verdict first, decision second"): none (no
// comparison applies: not accepted, no library, nothing timed), pending (the verdict is stored,
// the comparison with the incumbent runs), done (the decision is stored).
enum class ComparisonState { none, pending, done };

std::string_view comparison_state_name(ComparisonState s);
std::optional<ComparisonState> parse_comparison_state(std::string_view name);

}  // namespace kwb::core
