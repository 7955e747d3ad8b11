// The daemon's pipeline with fake evaluations over a real SQLite store and ledger: exceptions at
// the lane and worker boundaries, the attempt cap at start-up, a verdict write refused by a full
// disk, the verdict first and the comparison's decision after it (also after a restart). A GPU
// lane of depth 2: test_pipeline_lanes.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <chrono>
#include <future>
#include <thread>

#include "eval/device_lane.hpp"
#include "exec/pipeline.hpp"
#include "pipeline_rig.hpp"
#include "store/database.hpp"
#include "store/event_repository.hpp"
#include "temp_dir.hpp"
#include "tmpfs_mount.hpp"

namespace kwb::exec {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST(Pipeline, AnExceptionInAStageBecomesAnErrorVerdictAndTheWorkersCarryOn) {
  test::TempDir dir;
  Rig rig(dir.path());
  rig.ledger.start();
  Pipeline p(rig.db, rig.objects, rig.factory(), rig.ledger, config());
  ASSERT_TRUE(p.start());
  auto in_lane = rig.add("throw-in-validate");
  auto in_worker = rig.add("throw-in-analyze");
  auto fine = rig.add("fine");
  for (const auto& c : {in_lane, in_worker, fine}) rig.submit(p, c);
  ASSERT_TRUE(rig.eventually([&] { return rig.done(in_lane.id) && rig.done(in_worker.id) && rig.done(fine.id); }));
  auto a = *rig.get(in_lane.id), b = *rig.get(in_worker.id), c = *rig.get(fine.id);
  EXPECT_EQ(a.status, "error");
  EXPECT_NE(a.verdict["reason"].get<std::string>().find("boom from validate"), std::string::npos) << a.verdict.dump();
  EXPECT_EQ(b.status, "error");
  EXPECT_NE(b.verdict["reason"].get<std::string>().find("boom from analyze"), std::string::npos) << b.verdict.dump();
  EXPECT_EQ(c.status, "accepted") << "the lane or the worker died with the exception";
  p.stop();
}

// A judge that notes its work as progress, asks for a comparison, and in compare() either
// decides or finds the candidate failing (`fail`).
class NotingJudge : public Judge {
 public:
  explicit NotingJudge(bool fail = false, std::shared_future<void> hold = {}) : m_fail(fail), m_hold(std::move(hold)) {}
  bool verdict(const store::CandidateRecord&, const std::string&, core::Verdict& v, eval::Evaluation& e) override {
    e.report(eval::StageEvent{eval::Stage::decide, false, "baselines: none", std::nullopt, true});
    v.reason += "; baselines: none";
    return true;
  }
  void compare(const store::CandidateRecord&, const std::string&, core::Verdict& v, eval::Evaluation& e) override {
    if (m_hold.valid()) m_hold.wait();
    e.report(eval::StageEvent{eval::Stage::decide, false, "n1M: 1.020x [1.01, 1.03] faster after 4 blocks", std::nullopt, true});
    if (m_fail) {
      v.status = core::Status::incorrect;  // e.g. wrong on re-randomised inputs during the blocks
      v.reason = "during the interleaved comparison: wrong on n1M";
      return;
    }
    v.summary.beats_incumbent = true;
    v.summary.decision = core::Decision{true, "promotable: 1.020x geomean", {}, {}, {"n1M"}};
    v.summary.geomean_vs_incumbent = 1.02;
    v.summary.stage_ms["decide"] = 12;
    v.reason += "; beats the incumbent x.cpp";
  }
  void decided(const store::CandidateRecord&, const std::string&, core::Verdict& v) override {
    if (v.summary.beats_incumbent.value_or(false)) v.reason += "; auto-promoted in library commit abc";
  }

 private:
  bool m_fail;
  std::shared_future<void> m_hold;
};

std::vector<std::string> decide_events(Rig& rig, const std::string& id) {
  auto events = store::EventRepository(rig.db).after(id, 0);
  std::vector<std::string> seen;  // the decide stage's events, the verdict and the comparison, in order
  for (const auto& e : *events) {
    if (e.kind == "stage" && e.data["stage"] == "decide")
      seen.push_back(std::string(e.data["finished"].get<bool>() ? "end:" : "start:") + e.data.value("detail", ""));
    else if (e.kind == "progress" && e.data["stage"] == "decide")
      seen.push_back("note:" + e.data.value("detail", ""));
    else if (e.kind == "verdict")
      seen.push_back("verdict:" + e.data.value("status", "") + ":" + e.data.value("comparison", ""));
    else if (e.kind == "state" && e.data["state"] == "done")
      seen.push_back("done:" + e.data.value("comparison", ""));
    else if (e.kind == "comparison")
      seen.push_back(std::string("comparison:") + (e.data.value("promotable", false) ? "promotable" : "not promotable"));
  }
  return seen;
}

// Verdict first, decision second: the verdict is stored (and its events sent) before the timed
// comparison starts; the comparison's notes and its decision follow as events of their own, and
// the stored verdict then carries the comparison's fields, the auto-promotion's word included.
TEST(Pipeline, TheVerdictIsStoredBeforeTheComparisonAndTheDecisionFollows) {
  test::TempDir dir;
  Rig rig(dir.path());
  std::promise<void> go;
  PipelineConfig cfg = config();
  cfg.judge = std::make_shared<NotingJudge>(false, go.get_future().share());
  rig.ledger.start();
  Pipeline p(rig.db, rig.objects, rig.factory(), rig.ledger, cfg);
  ASSERT_TRUE(p.start());
  auto c = rig.add("fine");
  rig.submit(p, c);
  // The comparison is held: the verdict is there, its decision pending.
  ASSERT_TRUE(rig.eventually([&] { return rig.done(c.id); }));
  auto first = *rig.get(c.id);
  EXPECT_EQ(first.comparison_state, core::ComparisonState::pending);
  EXPECT_EQ(first.status, "accepted");
  EXPECT_TRUE(first.verdict["summary"]["decision"].is_null()) << first.verdict.dump();
  go.set_value();
  ASSERT_TRUE(rig.eventually([&] { return rig.decided(c.id); }));
  p.stop();
  auto rec = *rig.get(c.id);
  EXPECT_EQ(rec.status, "accepted");
  EXPECT_TRUE(rec.verdict["summary"]["beats_incumbent"].get<bool>());
  EXPECT_DOUBLE_EQ(rec.verdict["summary"]["geomean_vs_incumbent"].get<double>(), 1.02);
  EXPECT_EQ(rec.comparison["promotable"], true);
  const std::string reason = rec.verdict["reason"];
  EXPECT_NE(reason.find("; baselines: none; beats the incumbent x.cpp; auto-promoted"), std::string::npos) << reason;
  EXPECT_EQ(decide_events(rig, c.id),
            (std::vector<std::string>{"start:", "note:baselines: none", "end:accepted", "verdict:accepted:pending",
                                      "done:pending", "note:n1M: 1.020x [1.01, 1.03] faster after 4 blocks",
                                      "comparison:promotable"}));
}

// A candidate that fails during the comparison keeps its verdict (written once); its decision
// says it is not promotable and why.
TEST(Pipeline, ACandidateFailingDuringTheComparisonKeepsItsVerdictAndIsNotPromotable) {
  test::TempDir dir;
  Rig rig(dir.path());
  PipelineConfig cfg = config();
  cfg.judge = std::make_shared<NotingJudge>(true);
  rig.ledger.start();
  Pipeline p(rig.db, rig.objects, rig.factory(), rig.ledger, cfg);
  ASSERT_TRUE(p.start());
  auto c = rig.add("fine");
  rig.submit(p, c);
  ASSERT_TRUE(rig.eventually([&] { return rig.decided(c.id); }));
  p.stop();
  auto rec = *rig.get(c.id);
  EXPECT_EQ(rec.status, "accepted");
  EXPECT_FALSE(rec.verdict["summary"]["beats_incumbent"].get<bool>());
  EXPECT_EQ(rec.comparison["failure"]["status"], "incorrect") << rec.comparison.dump();
  EXPECT_NE(rec.verdict["summary"]["decision"]["reason"].get<std::string>().find("wrong on n1M"), std::string::npos);
  EXPECT_EQ(decide_events(rig, c.id).back(), "comparison:not promotable");
}

// A daemon stopped during a comparison: at the next start the candidate keeps its verdict (no
// second one), the comparison alone runs again, and its decision is stored once.
TEST(Pipeline, AComparisonInterruptedByAStopRunsAgainAtTheNextStartAndTheVerdictStays) {
  test::TempDir dir;
  Rig rig(dir.path());
  auto c = rig.add("fine");
  {  // as a daemon that died during the comparison leaves it: verdict stored, comparison pending
    store::CandidateRepository repo(rig.db);
    ASSERT_EQ(*repo.begin_attempt(c.id), 1);
    core::Verdict v;
    v.op = "vector_add";
    v.backend = "cpu";
    v.status = core::Status::accepted;
    v.reason = "fine (the first verdict)";
    ASSERT_TRUE(*repo.finish(c.id, core::to_json(v), core::ComparisonState::pending));
    ASSERT_EQ(*repo.begin_comparison(c.id), 1);
  }
  PipelineConfig cfg = config();
  cfg.judge = std::make_shared<NotingJudge>();
  rig.ledger.start();
  Pipeline p(rig.db, rig.objects, rig.factory(), rig.ledger, cfg);
  ASSERT_TRUE(p.start());
  ASSERT_TRUE(rig.eventually([&] { return rig.decided(c.id); }));
  p.stop();
  auto rec = *rig.get(c.id);
  EXPECT_EQ(rec.attempts, 1) << "the candidate was evaluated again as a new attempt";
  EXPECT_EQ(rec.comparison_attempts, 2);
  EXPECT_EQ(rec.verdict["reason"].get<std::string>().rfind("fine (the first verdict)", 0), 0u) << rec.verdict.dump();
  EXPECT_TRUE(rec.verdict["summary"]["beats_incumbent"].get<bool>());
  auto seen = decide_events(rig, c.id);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), "comparison:promotable"), 1);
  EXPECT_EQ(std::count_if(seen.begin(), seen.end(), [](const std::string& s) { return s.starts_with("verdict:"); }), 0)
      << "a second verdict event";
}

TEST(Pipeline, ACandidateInterruptedTwiceGetsAnErrorVerdictInsteadOfAThirdRun) {
  test::TempDir dir;
  Rig rig(dir.path());
  store::CandidateRepository repo(rig.db);
  auto twice = rig.add("fine");
  ASSERT_EQ(*repo.begin_attempt(twice.id), 1);  // two runs, each ended by the daemon's death
  ASSERT_EQ(*repo.begin_attempt(twice.id), 2);
  auto once = rig.add("fine");
  ASSERT_EQ(*repo.begin_attempt(once.id), 1);
  rig.ledger.start();
  Pipeline p(rig.db, rig.objects, rig.factory(), rig.ledger, config());
  ASSERT_TRUE(p.start());
  ASSERT_TRUE(rig.eventually([&] { return rig.done(twice.id) && rig.done(once.id); }));
  auto t = *rig.get(twice.id);
  EXPECT_EQ(t.status, "error");
  EXPECT_NE(t.verdict["reason"].get<std::string>().find("interrupted 2 times"), std::string::npos) << t.verdict.dump();
  EXPECT_EQ(t.attempts, 2) << "it was run a third time";
  EXPECT_EQ(rig.get(once.id)->status, "accepted");
  EXPECT_EQ(rig.made.load(), 1) << "only the candidate interrupted once is evaluated again";
  p.stop();
}

TEST(Pipeline, AVerdictRefusedByAFullDiskIsRetriedUntilStored) {
  test::TmpfsMount disk(16 << 20);
  TMPFS_OR_SKIP(disk);
  Rig rig(disk.path());
  rig.ledger.start();
  Pipeline p(rig.db, rig.objects, rig.factory(), rig.ledger, config());
  ASSERT_TRUE(p.start());
  auto c = rig.add("wait-then-big-verdict");
  rig.submit(p, c);
  ASSERT_TRUE(rig.eventually([&] { return rig.get(c.id)->state == core::CandidateState::deciding; }));
  ASSERT_GT(test::TmpfsMount::fill(disk / "ballast"), 0u);
  rig.release_promise.set_value();
  ASSERT_TRUE(rig.eventually([&] { return p.stats().unwritten_verdicts == 1; }))
      << "the verdict was neither stored nor kept for a retry";
  EXPECT_NE(rig.get(c.id)->state, core::CandidateState::done);
  EXPECT_NE(p.stats().last_write_error.find("no space left"), std::string::npos) << p.stats().last_write_error;
  fs::remove(disk / "ballast");
  ASSERT_TRUE(rig.eventually([&] { return rig.done(c.id); })) << "the kept verdict was never stored";
  auto done = *rig.get(c.id);
  EXPECT_EQ(done.status, "accepted");
  EXPECT_EQ(done.verdict["reason"].get<std::string>().size(), size_t(1 << 20));
  EXPECT_EQ(p.stats().unwritten_verdicts, 0u);
  p.stop();
}

}  // namespace
}  // namespace kwb::exec
