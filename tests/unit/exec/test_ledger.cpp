// The ledger (exec/ledger.hpp) over a real SQLite store: illegal moves refused and never stored,
// the verdict written once with its events, the decision only after a pending verdict,
// cancellation of a queued and of a running candidate.
#include <gtest/gtest.h>

#include "exec/ledger.hpp"
#include "store/event_repository.hpp"
#include "store/object_store.hpp"
#include "temp_dir.hpp"

namespace kwb::exec {
namespace {

using S = core::CandidateState;

struct Rig {
  test::TempDir dir;
  store::Database db{*store::Database::open(dir / "kwb.db")};
  EventHub hub;
  Ledger ledger{db, hub};
  store::CandidateRecord add() {
    store::CandidateRecord r;
    r.op = "vector_add";
    r.backend = "cpu";
    r.source_sha256 = std::string(64, 'a');
    r.source_name = "c.cpp";
    auto rec = *store::CandidateRepository(db).insert(r, nullptr);
    ledger.submitted(rec);
    return rec;
  }
  store::CandidateRecord get(const std::string& id) { return **store::CandidateRepository(db).find(id); }
  std::vector<std::string> events(const std::string& id) {
    std::vector<std::string> out;
    auto events = store::EventRepository(db).after(id, 0);
    for (const auto& e : *events) {
      auto text = [&](const char* k) {
        return e.data.contains(k) && e.data[k].is_string() ? e.data[k].get<std::string>() : std::string();
      };
      out.push_back(e.kind + ":" + (text("state").empty() ? text("status") : text("state")));
    }
    return out;
  }
};

core::Verdict accepted() {
  core::Verdict v;
  v.op = "vector_add";
  v.backend = "cpu";
  v.status = core::Status::accepted;
  v.reason = "correct";
  return v;
}

TEST(Ledger, AnIllegalMoveIsRefusedAndNeitherStoredNorAnnounced) {
  Rig rig;
  auto c = rig.add();
  ASSERT_EQ(*rig.ledger.begin_attempt(c.id), 1);
  EXPECT_TRUE(rig.ledger.advance(c.id, S::compiling));
  EXPECT_TRUE(rig.ledger.advance(c.id, S::benchmarking));
  EXPECT_FALSE(rig.ledger.advance(c.id, S::validating)) << "a stage never goes back";
  EXPECT_FALSE(rig.ledger.advance(c.id, S::benchmarking)) << "nor to itself";
  EXPECT_EQ(rig.get(c.id).state, S::benchmarking);
  EXPECT_EQ(rig.events(c.id), (std::vector<std::string>{"state:queued", "state:analyzing", "state:compiling",
                                                        "state:benchmarking"}));
  EXPECT_EQ(*rig.ledger.begin_attempt(c.id), 0) << "an attempt starts from queued only";
}

TEST(Ledger, TheVerdictIsWrittenOnceWithItsEventsAndATerminalCandidateNeverMoves) {
  Rig rig;
  auto c = rig.add();
  ASSERT_EQ(*rig.ledger.begin_attempt(c.id), 1);
  rig.ledger.finish(c.id, accepted());
  core::Verdict second = accepted();
  second.status = core::Status::error;
  rig.ledger.finish(c.id, second);
  auto rec = rig.get(c.id);
  EXPECT_EQ(rec.state, S::done);
  EXPECT_EQ(rec.status, "accepted");
  EXPECT_EQ(rec.comparison_state, core::ComparisonState::none);
  EXPECT_FALSE(rig.ledger.advance(c.id, S::validating));
  EXPECT_EQ(rig.events(c.id), (std::vector<std::string>{"state:queued", "state:analyzing", "verdict:accepted", "state:done"}));
  EXPECT_EQ(rig.ledger.stats().finished, 1u);
}

TEST(Ledger, ADecisionIsStoredOnlyAfterAVerdictWhoseComparisonIsPending) {
  Rig rig;
  auto plain = rig.add();
  rig.ledger.finish(plain.id, accepted());
  core::Verdict judged = accepted();
  judged.summary.beats_incumbent = true;
  judged.summary.decision = core::Decision{true, "promotable", {}, {}, {}};
  rig.ledger.decide(plain.id, judged);  // no comparison was pending: ignored
  EXPECT_EQ(rig.get(plain.id).comparison_state, core::ComparisonState::none);
  EXPECT_TRUE(rig.get(plain.id).verdict["summary"]["decision"].is_null());

  auto c = rig.add();
  rig.ledger.finish(c.id, accepted(), core::ComparisonState::pending);
  EXPECT_EQ(*rig.ledger.begin_comparison(c.id), 1);
  rig.ledger.decide(c.id, judged);
  core::Verdict again = judged;
  again.summary.decision->promotable = false;
  rig.ledger.decide(c.id, again);  // the first decision stands
  auto rec = rig.get(c.id);
  EXPECT_EQ(rec.comparison_state, core::ComparisonState::done);
  EXPECT_TRUE(rec.verdict["summary"]["decision"]["promotable"].get<bool>());
  EXPECT_EQ(rec.comparison["promotable"], true);
  auto ev = rig.events(c.id);
  EXPECT_EQ(std::count(ev.begin(), ev.end(), "comparison:done"), 1);
  EXPECT_EQ(*rig.ledger.begin_comparison(c.id), 0) << "nothing pending any more";
}

TEST(Ledger, AQueuedCandidateIsCancelledAtOnceAndARunningOneIsFlagged) {
  Rig rig;
  auto queued = rig.add();
  EXPECT_EQ(*rig.ledger.request_cancel(queued.id), S::cancelled);
  EXPECT_EQ(rig.get(queued.id).state, S::cancelled);
  EXPECT_EQ(rig.events(queued.id), (std::vector<std::string>{"state:queued", "state:cancelled"}));
  EXPECT_EQ(*rig.ledger.request_cancel(queued.id), S::cancelled);
  EXPECT_EQ(rig.events(queued.id).size(), 2u) << "a second request announces nothing";

  auto running = rig.add();
  ASSERT_EQ(*rig.ledger.begin_attempt(running.id), 1);
  EXPECT_FALSE(rig.ledger.cancel_requested(running.id));
  EXPECT_EQ(*rig.ledger.request_cancel(running.id), S::analyzing);
  EXPECT_TRUE(rig.ledger.cancel_requested(running.id));
  EXPECT_TRUE(rig.get(running.id).cancel_requested) << "persisted, for a restart";
  rig.ledger.mark_cancelled(running.id);
  EXPECT_EQ(rig.get(running.id).state, S::cancelled);
  EXPECT_FALSE(rig.ledger.advance(running.id, S::compiling));
}

TEST(Ledger, RecoveryRequeuesInterruptedCandidatesAndListsPendingComparisons) {
  Rig rig;
  auto mid = rig.add();
  ASSERT_EQ(*rig.ledger.begin_attempt(mid.id), 1);
  ASSERT_TRUE(rig.ledger.advance(mid.id, S::compiling));
  auto compared = rig.add();
  rig.ledger.finish(compared.id, accepted(), core::ComparisonState::pending);
  Ledger fresh(rig.db, rig.hub);  // the next daemon
  auto r = fresh.recover({});
  ASSERT_TRUE(r) << r.error().what();
  ASSERT_EQ(r->evaluate.size(), 1u);
  EXPECT_EQ(r->evaluate[0].id, mid.id);
  EXPECT_EQ(rig.get(mid.id).state, S::queued);
  ASSERT_EQ(r->compare.size(), 1u);
  EXPECT_EQ(r->compare[0].id, compared.id);
  EXPECT_EQ(rig.get(compared.id).state, S::done) << "its verdict stays";
}

}  // namespace
}  // namespace kwb::exec
