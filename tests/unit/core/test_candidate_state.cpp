// A candidate's states and the legal moves between them (core/candidate_state.hpp), and the
// decision part carried into a stored verdict (core/verdict_comparison.hpp).
#include <gtest/gtest.h>

#include "core/candidate_state.hpp"
#include "core/filters.hpp"
#include "core/verdict_comparison.hpp"

namespace kwb::core {
namespace {

using S = CandidateState;

TEST(CandidateState, EveryStateHasOneNameThatParsesBack) {
  for (const auto& name : candidate_states()) {
    auto s = parse_state(name);
    ASSERT_TRUE(s) << name;
    EXPECT_EQ(state_name(*s), name);
  }
  EXPECT_EQ(candidate_states().size(), 8u);
  EXPECT_FALSE(parse_state("finished"));
  EXPECT_FALSE(parse_comparison_state("maybe"));
  for (auto c : {ComparisonState::none, ComparisonState::pending, ComparisonState::done})
    EXPECT_EQ(parse_comparison_state(comparison_state_name(c)), c);
}

TEST(CandidateState, StagesMoveForwardOnlyAndTerminalStatesNeverMove) {
  EXPECT_TRUE(legal_transition(S::queued, S::analyzing));
  EXPECT_TRUE(legal_transition(S::analyzing, S::compiling));
  EXPECT_TRUE(legal_transition(S::compiling, S::validating));
  EXPECT_TRUE(legal_transition(S::validating, S::benchmarking));
  EXPECT_TRUE(legal_transition(S::benchmarking, S::deciding));
  EXPECT_TRUE(legal_transition(S::validating, S::deciding)) << "a stage with nothing to do may be skipped";
  EXPECT_FALSE(legal_transition(S::benchmarking, S::validating)) << "backwards";
  EXPECT_FALSE(legal_transition(S::compiling, S::analyzing)) << "backwards";
  EXPECT_FALSE(legal_transition(S::validating, S::validating)) << "to itself";
  for (auto from : {S::queued, S::analyzing, S::compiling, S::validating, S::benchmarking, S::deciding}) {
    EXPECT_TRUE(legal_transition(from, S::done)) << state_name(from);
    EXPECT_TRUE(legal_transition(from, S::cancelled)) << state_name(from);
  }
  EXPECT_TRUE(legal_transition(S::benchmarking, S::queued)) << "requeued at start-up";
  EXPECT_FALSE(legal_transition(S::queued, S::queued));
  for (auto terminal : {S::done, S::cancelled})
    for (int to = 0; to <= int(S::cancelled); ++to)
      EXPECT_FALSE(legal_transition(terminal, S(to))) << state_name(terminal) << " -> " << state_name(S(to));
}

Verdict stored_verdict() {
  Verdict v;
  v.op = "vector_add";
  v.backend = "cpu";
  v.status = Status::accepted;
  v.reason = "correct on 9 test workloads";
  v.summary.wall_ms = 100;
  WorkloadResult w;
  w.name = "n1M";
  w.kind = "bench";
  TimeStats t;
  t.median_ns = 1000;
  w.time = t;
  v.workloads.push_back(w);
  return v;
}

TEST(MergeComparison, OnlyTheComparisonsFieldsAreCarriedIntoTheStoredVerdict) {
  Verdict stored = stored_verdict();
  Verdict judged = stored;
  judged.workloads[0].time->median_ns = 5;  // a judge must not change the measurements
  judged.workloads[0].vs_incumbent = 1.2;
  Comparison c;
  c.label = "faster";
  c.ratio = 1.2;
  c.low = 1.1;
  c.high = 1.3;
  judged.workloads[0].comparison = c;
  judged.summary.decision = Decision{true, "promotable: 1.200x geomean", {}, {}, {"n1M"}};
  judged.summary.beats_incumbent = true;
  judged.summary.geomean_vs_incumbent = 1.2;
  judged.summary.stage_ms["decide"] = 40;
  judged.reason += "; beats the incumbent k.cpp";
  auto part = merge_comparison(stored, judged);
  EXPECT_EQ(part.merged.workloads[0].time->median_ns, 1000);
  EXPECT_EQ(part.merged.workloads[0].vs_incumbent, 1.2);
  EXPECT_EQ(part.merged.reason, "correct on 9 test workloads; beats the incumbent k.cpp");
  EXPECT_EQ(part.merged.summary.wall_ms, 140);
  EXPECT_EQ(part.comparison["state"], "done");
  EXPECT_EQ(part.comparison["promotable"], true);
  EXPECT_EQ(part.comparison["note"], "beats the incumbent k.cpp");
  ASSERT_EQ(part.comparison["workloads"].size(), 1u);
  EXPECT_EQ(part.comparison["workloads"][0]["comparison"]["label"], "faster");
}

TEST(MergeComparison, AFailureDuringTheComparisonLeavesTheVerdictAndMakesTheDecisionNotPromotable) {
  Verdict stored = stored_verdict();
  Verdict judged = stored;
  judged.status = Status::sandbox_violation;
  judged.reason = "during the interleaved comparison: a thread left running";
  judged.summary.beats_incumbent = true;  // whatever else it claims
  auto part = merge_comparison(stored, judged);
  EXPECT_EQ(part.merged.status, Status::accepted);
  EXPECT_FALSE(*part.merged.summary.beats_incumbent);
  ASSERT_TRUE(part.merged.summary.decision);
  EXPECT_FALSE(part.merged.summary.decision->promotable);
  EXPECT_NE(part.merged.summary.decision->reason.find("a thread left running"), std::string::npos);
  EXPECT_EQ(part.comparison["failure"]["status"], "sandbox_violation");
  EXPECT_EQ(part.comparison["promotable"], false);
}

}  // namespace
}  // namespace kwb::core
