// The daemon's pipeline with fake evaluations over a real SQLite store and ledger: exceptions at
// the lane and worker boundaries, the attempt cap at start-up, a verdict write refused by a full
// disk, the verdict first and the comparison's decision after it (also after a restart), and a
// GPU lane of depth 2 (evaluations that share the device side by side, any other alone).
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
#include "store/database.hpp"
#include "store/event_repository.hpp"
#include "temp_dir.hpp"
#include "tmpfs_mount.hpp"

namespace kwb::exec {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Behaviour chosen by the candidate's note.
class FakeEvaluation : public eval::Evaluation {
 public:
  FakeEvaluation(std::string note, std::shared_future<void> release, eval::ProgressFn progress = nullptr)
      : m_note(std::move(note)), m_release(release), m_progress(std::move(progress)) {}
  bool analyze() override {
    if (m_note == "throw-in-analyze") throw std::runtime_error("boom from analyze");
    return true;
  }
  bool compile() override { return true; }
  bool validate() override {
    if (m_note == "throw-in-validate") throw std::runtime_error("boom from validate");
    return true;
  }
  bool benchmark() override { return true; }
  bool decide() override {
    if (m_note == "wait-then-big-verdict") m_release.wait();
    return true;
  }
  core::Verdict verdict() override {
    core::Verdict v;
    v.op = "vector_add";
    v.backend = "cpu";
    v.status = core::Status::accepted;
    v.reason = m_note == "wait-then-big-verdict" ? std::string(1 << 20, 'r') : "fine";
    return v;
  }
  std::string device_key() const override { return "cpu"; }
  void report(const eval::StageEvent& e) override {
    if (m_progress) m_progress(e);
  }

 private:
  std::string m_note;
  std::shared_future<void> m_release;
  eval::ProgressFn m_progress;
};

struct Rig {
  explicit Rig(const fs::path& dir) : db(*store::Database::open(dir / "kwb.db")), objects(dir / "objects") {
    sha = *objects.put("// source\n");
  }
  store::CandidateRecord add(const std::string& note) {
    store::CandidateRecord r;
    r.op = "vector_add";
    r.backend = "cpu";
    r.source_sha256 = sha;
    r.source_name = "candidate.cpp";
    r.note = note;
    return *store::CandidateRepository(db).insert(r, nullptr);
  }
  EvaluationFactory factory() {
    return [this](const store::CandidateRecord& rec, const std::string&, eval::ProgressFn progress)
               -> util::Result<std::unique_ptr<eval::Evaluation>> {
      ++made;
      return std::make_unique<FakeEvaluation>(rec.note, release, std::move(progress));
    };
  }
  std::optional<store::CandidateRecord> get(const std::string& id) {
    auto r = store::CandidateRepository(db).find(id);
    return r && *r ? std::optional(**r) : std::nullopt;
  }
  // Polls until `pred` holds (bounded).
  bool eventually(const std::function<bool()>& pred, std::chrono::seconds limit = 20s) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (pred()) return true;
      std::this_thread::sleep_for(10ms);
    }
    return pred();
  }
  bool done(const std::string& id) {
    auto r = get(id);
    return r && r->state == core::CandidateState::done;
  }
  bool decided(const std::string& id) {
    auto r = get(id);
    return r && r->comparison_state == core::ComparisonState::done;
  }
  // What the intake does after storing a candidate: the ledger announces it, the pipeline runs it.
  void submit(Pipeline& p, const store::CandidateRecord& c) {
    ledger.submitted(c);
    p.schedule(c);
  }
  store::Database db;
  store::ObjectStore objects;
  EventHub hub;
  Ledger ledger{db, hub, LedgerConfig{50ms, 2}};
  std::string sha;
  std::atomic<int> made{0};
  std::promise<void> release_promise;
  std::shared_future<void> release = release_promise.get_future().share();
};

PipelineConfig config() {
  PipelineConfig c;
  c.compile_workers = 1;
  return c;
}

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

// What a depth-2 lane's evaluations saw: how many were in their device stages at once.
struct LaneProbe {
  std::mutex mutex;
  std::condition_variable cv;
  int active = 0, max_active = 0;
  int sharing_arrivals = 0;  // sharing evaluations that entered validate so far (never goes down)
  std::vector<std::string> log;  // "<note>: <active at entry>", "<note>: met" for a rendezvous
};

// On the lane "gpu-queue"; a note starting "share" shares the device and waits in validate()
// (bounded) until another sharing evaluation is there too.
class LaneEvaluation : public eval::Evaluation {
 public:
  LaneEvaluation(std::string note, LaneProbe& probe) : m_note(std::move(note)), m_probe(probe) {}
  bool analyze() override { return true; }
  bool compile() override { return true; }
  bool validate() override {
    std::unique_lock lock(m_probe.mutex);
    ++m_probe.active;
    m_probe.max_active = std::max(m_probe.max_active, m_probe.active);
    m_probe.log.push_back(m_note + ": " + std::to_string(m_probe.active));
    if (shares_device()) {
      // Sharers arrive in pairs (1 and 2, 3 and 4): each waits until its partner has arrived too,
      // which it can only do while this one is still on the lane. A count that never goes down:
      // a partner that met it and left at once cannot hide the meeting from a late wake-up.
      const int arrival = ++m_probe.sharing_arrivals;
      const int partner = arrival % 2 ? arrival + 1 : arrival - 1;
      m_probe.cv.notify_all();
      if (m_probe.cv.wait_for(lock, 20s, [&] { return m_probe.sharing_arrivals >= partner; }))
        m_probe.log.push_back(m_note + ": met");
    }
    return true;
  }
  bool benchmark() override { return true; }
  bool decide() override {
    std::lock_guard lock(m_probe.mutex);
    --m_probe.active;
    m_probe.cv.notify_all();
    return true;
  }
  core::Verdict verdict() override {
    core::Verdict v;
    v.op = "vector_add";
    v.backend = "cuda";
    v.status = core::Status::accepted;
    v.reason = "fine";
    return v;
  }
  std::string device_key() const override { return "gpu-queue"; }
  bool shares_device() const override { return m_note.starts_with("share"); }

 private:
  std::string m_note;
  LaneProbe& m_probe;
};

TEST(Pipeline, ADepthTwoLaneRunsSharingEvaluationsSideBySideAndAnyOtherAlone) {
  test::TempDir dir;
  Rig rig(dir.path());
  LaneProbe probe;
  EvaluationFactory factory = [&](const store::CandidateRecord& rec, const std::string&,
                                  eval::ProgressFn) -> util::Result<std::unique_ptr<eval::Evaluation>> {
    return std::make_unique<LaneEvaluation>(rec.note, probe);
  };
  auto lane = std::make_shared<eval::DeviceLane>();
  lane->device.present = true;
  lane->device.key = "cuda:0000:01:00.0";
  PipelineConfig cfg = config();
  cfg.lanes.push_back({"gpu-queue", lane, 2});
  rig.ledger.start();
  Pipeline p(rig.db, rig.objects, factory, rig.ledger, cfg);
  ASSERT_TRUE(p.start());
  std::vector<std::string> ids;
  for (const char* note : {"share-1", "share-2", "alone-1", "share-3", "share-4", "alone-2"}) {
    auto c = rig.add(note);
    ids.push_back(c.id);
    rig.submit(p, c);
  }
  const bool all_done = rig.eventually([&] {
    for (const auto& id : ids)
      if (!rig.done(id)) return false;
    return true;
  });
  std::lock_guard lock(probe.mutex);
  std::string log;
  for (const auto& l : probe.log) log += l + "\n";
  ASSERT_TRUE(all_done) << log;
  EXPECT_EQ(probe.max_active, 2) << log;
  for (const char* note : {"alone-1", "alone-2"})
    EXPECT_NE(std::find(probe.log.begin(), probe.log.end(), std::string(note) + ": 1"), probe.log.end())
        << note << " did not have the lane to itself:\n" << log;
  for (const char* note : {"share-1", "share-2", "share-3", "share-4"})
    EXPECT_NE(std::find(probe.log.begin(), probe.log.end(), std::string(note) + ": met"), probe.log.end())
        << note << " never ran beside another sharing evaluation:\n" << log;
  // The lane's own account follows the stored verdicts (a verdict is visible before the lane
  // has taken its candidate off).
  auto lane_settled = [&] {
    auto lanes = p.stats().lanes;
    return lanes.size() == 1u && lanes[0].finished == 6u && lanes[0].candidates.empty();
  };
  EXPECT_TRUE(rig.eventually(lane_settled));
  auto lanes = p.stats().lanes;
  ASSERT_EQ(lanes.size(), 1u);
  EXPECT_EQ(lanes[0].finished, 6u);
  EXPECT_TRUE(lanes[0].candidates.empty());
  p.stop();
}

}  // namespace
}  // namespace kwb::exec
