// The decide stage's orchestration against the library (library/referee.hpp) without timing:
// what is compared at all, how an incumbent that fails or cannot run is treated, and which bench
// workloads the incumbent is timed on for its tuning records (those missing under the identity it
// would have here). The interleaved timing itself and the decision rule are tested in
// tests/integration/test_decide_noise.cpp and test_decision.cpp.
#include <gtest/gtest.h>

#include "library/dispatch.hpp"
#include "library/referee.hpp"
#include "spec/loader.hpp"
#include "store/tuning_repository.hpp"
#include "temp_dir.hpp"
#include "util/hash.hpp"

namespace kwb::library {
namespace {

using kwb::test::TempDir;

const std::string k_toolchain = "g++ 12.2.0 -std=c++20 -O3";

core::Verdict timed(double n1m_ns, double n16m_ns, const std::string& toolchain = k_toolchain, int spec_version = 1) {
  core::Verdict v;
  v.op = "vector_add";
  v.spec_version = spec_version;  // evaluations say which version of the spec judged them
  v.variant = "f32";
  v.backend = "cpu";
  v.status = core::Status::accepted;
  v.reason = "correct";
  v.device = "AMD EPYC (2 logical CPUs), 1 thread";
  v.toolchain = toolchain;
  for (auto [name, ns] : {std::pair{"n1M", n1m_ns}, std::pair{"n16M", n16m_ns}}) {
    core::WorkloadResult w;
    w.name = name;
    w.kind = "bench";
    w.params = {{"n", name == std::string("n1M") ? 1048576 : 16777216}};
    core::TimeStats t;
    t.median_ns = ns;
    t.mean_stderr_pct = 0.2;
    t.samples = 50;
    w.time = t;
    v.workloads.push_back(w);
  }
  return v;
}

// An evaluation whose stages succeed and whose verdict is given; it cannot time more blocks.
class CannedEvaluation : public eval::Evaluation {
 public:
  CannedEvaluation(const core::Spec* spec, core::Verdict v) : m_spec(spec), m_verdict(std::move(v)) {}
  bool analyze() override { return true; }
  bool compile() override { return true; }
  bool validate() override { return true; }
  bool benchmark() override { return true; }
  bool decide() override { return true; }
  core::Verdict verdict() override { return m_verdict; }
  std::string device_key() const override { return "cpu"; }
  const core::Spec* spec() const override { return m_spec; }

 private:
  const core::Spec* m_spec;
  core::Verdict m_verdict;
};

struct Fixture {
  TempDir dir;
  std::unique_ptr<Repository> repo;
  std::optional<store::Database> db;
  std::optional<spec::Catalog> catalog;
  std::string incumbent_source;
  Fixture() {
    auto r = Repository::open_or_seed(dir / "lib", std::filesystem::path(KWB_TEST_SOURCE_DIR) / "kernels");
    if (!r) throw std::runtime_error(r.error().what());
    repo = std::move(*r);
    auto d = store::Database::open(dir / "kwb.db");
    if (!d) throw std::runtime_error(d.error().what());
    db.emplace(std::move(*d));
    auto c = spec::Catalog::load(std::filesystem::path(KWB_TEST_SOURCE_DIR) / "specs");
    if (!c) throw std::runtime_error(c.error().what());
    catalog.emplace(std::move(*c));
    incumbent_source = *repo->read("vector_add/cpu/vectorized.cpp");
  }
  const core::Spec* spec() const { return catalog->find("vector_add"); }
  // A prepare function handing out canned incumbents, recording what it was asked.
  PrepareFn prepare(std::function<core::Verdict()> make, std::vector<std::vector<std::string>>* asked) {
    return [this, make, asked](const core::Candidate& inc,
                               const std::vector<std::string>& bench) -> util::Result<std::unique_ptr<eval::Evaluation>> {
      EXPECT_EQ(inc.source, incumbent_source);
      if (asked) asked->push_back(bench);
      return std::unique_ptr<eval::Evaluation>(new CannedEvaluation(spec(), make()));
    };
  }
};

core::Candidate candidate(const std::string& tag) {
  return {"c-00000000000000aa", "vector_add", "f32", "cpu", "// " + tag + "\n", "cand.cpp", {}, ""};
}

TEST(Referee, IdenticalSourceAndRejectedVerdictsAreNotCompared) {
  Fixture f;
  Referee referee(*f.repo, *f.db);
  std::vector<std::vector<std::string>> asked;
  auto prepare = f.prepare([] { return timed(1, 1); }, &asked);
  CannedEvaluation open(f.spec(), timed(1000, 20000));
  core::Candidate same = candidate("x");
  same.source = f.incumbent_source;
  core::Verdict v = timed(1000, 20000);
  referee.judge(same, v, &open, prepare);
  ASSERT_TRUE(v.summary.beats_incumbent);
  EXPECT_FALSE(*v.summary.beats_incumbent);
  ASSERT_TRUE(v.summary.decision);
  EXPECT_FALSE(v.summary.decision->promotable);
  EXPECT_NE(v.reason.find("identical to the incumbent"), std::string::npos);
  core::Verdict bad = timed(1000, 20000);
  bad.status = core::Status::incorrect;
  referee.judge(candidate("y"), bad, &open, prepare);
  EXPECT_FALSE(bad.summary.beats_incumbent);
  EXPECT_TRUE(asked.empty());
}

TEST(Referee, WithoutAnOpenEvaluationThereIsNoDecision) {
  Fixture f;
  Referee referee(*f.repo, *f.db);
  std::vector<std::vector<std::string>> asked;
  core::Verdict v = timed(1000, 20000);
  referee.judge(candidate("a"), v, nullptr, f.prepare([] { return timed(2000, 40000); }, &asked));
  EXPECT_FALSE(v.summary.beats_incumbent) << "a decision rests on a fresh interleaved comparison only";
  EXPECT_FALSE(v.summary.decision);
  EXPECT_TRUE(asked.empty());
  EXPECT_NE(v.reason.find("not compared"), std::string::npos) << v.reason;
}

TEST(Referee, StoredRecordsAreNeverTheBasisOfADecision) {
  // The incumbent's records say it is 2x slower; without an interleaved comparison (the open
  // evaluation cannot time more) the candidate still does not beat it.
  Fixture f;
  Referee referee(*f.repo, *f.db);
  CannedEvaluation open(f.spec(), timed(1000, 20000));
  core::Verdict v = timed(1000, 20000);
  v.summary.wall_ms = 500;  // analysis to the end of benchmark
  referee.judge(candidate("a"), v, &open, f.prepare([] { return timed(2000, 40000); }, nullptr));
  // wall_ms runs to the verdict: the decide stage's time is part of it (issue 17, point 13).
  ASSERT_TRUE(v.summary.stage_ms.count("decide"));
  EXPECT_DOUBLE_EQ(v.summary.wall_ms, 500 + v.summary.stage_ms["decide"]);
  EXPECT_FALSE(v.summary.beats_incumbent) << v.reason;
  EXPECT_FALSE(v.summary.geomean_vs_incumbent);
  EXPECT_FALSE(v.workloads[0].vs_incumbent);
  ASSERT_TRUE(v.summary.incumbent);
  EXPECT_TRUE(v.summary.incumbent->remeasured);
  EXPECT_GE(v.summary.stage_ms.count("decide"), 1u);
}

TEST(Referee, TheIncumbentIsTimedOnlyWhereItsRecordsAreMissingOrStale) {
  Fixture f;
  Referee referee(*f.repo, *f.db);
  std::vector<std::vector<std::string>> asked;
  CannedEvaluation open(f.spec(), timed(1000, 20000));
  core::Verdict first = timed(1000, 20000);
  referee.judge(candidate("a"), first, &open, f.prepare([] { return timed(2000, 40000); }, &asked));
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].size(), 2u);  // no records yet: both bench workloads

  core::Verdict second = timed(1000, 20000);
  referee.judge(candidate("b"), second, &open, f.prepare([] { return timed(2000, 40000); }, &asked));
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[1], std::vector<std::string>{eval::EvalOptions::k_no_bench});  // records current: validation only

  // Same kernels, another compiler version: the incumbent's old records no longer count.
  const std::string other = "g++ 13.1.0 -std=c++20 -O3";
  core::Verdict third = timed(1000, 20000, other);
  referee.judge(candidate("c"), third, &open, f.prepare([&] { return timed(900, 18000, other); }, &asked));
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_EQ(asked[2].size(), 2u);
  store::TuningRepository tuning(*f.db);
  auto all = tuning.find({"vector_add", "f32", "cpu", util::sha256_hex(f.incumbent_source), true});
  ASSERT_TRUE(all);
  int stale = 0, fresh = 0;
  for (const auto& r : *all) {
    (r.stale ? stale : fresh)++;
    EXPECT_EQ(r.stale, r.identity.toolchain == k_toolchain) << r.identity.toolchain;
  }
  EXPECT_EQ(stale, 2);
  EXPECT_EQ(fresh, 2);
}

TEST(Referee, AnIncumbentThisMachineCannotRunIsNotBeaten) {
  Fixture f;
  Referee referee(*f.repo, *f.db);
  CannedEvaluation open(f.spec(), timed(5000, 100000));
  core::Verdict v = timed(5000, 100000);
  referee.judge(candidate("a"), v, &open, f.prepare([] {
    core::Verdict bad = timed(1, 1);
    bad.status = core::Status::no_device;
    bad.reason = "no CUDA device";
    return bad;
  }, nullptr));
  EXPECT_FALSE(v.summary.beats_incumbent) << v.reason;
  EXPECT_NE(v.reason.find("could not be re-timed (no_device"), std::string::npos) << v.reason;
  core::Verdict w = timed(5000, 100000);
  referee.judge(candidate("b"), w, &open, f.prepare([] {
    core::Verdict wrong = timed(1, 1);
    wrong.status = core::Status::incorrect;
    wrong.reason = "wrong on 1 of 9 test workloads";
    return wrong;
  }, nullptr));
  ASSERT_TRUE(w.summary.beats_incumbent);
  EXPECT_TRUE(*w.summary.beats_incumbent) << "an incumbent that fails the spec loses its place: " << w.reason;
}

TEST(Referee, RecordsOfAnotherSpecVersionAreStale) {
  Fixture f;
  Referee referee(*f.repo, *f.db);
  std::vector<std::vector<std::string>> asked;
  CannedEvaluation open(f.spec(), timed(1000, 20000));
  core::Verdict first = timed(1000, 20000);
  referee.judge(candidate("a"), first, &open, f.prepare([] { return timed(2000, 40000); }, &asked));
  ASSERT_EQ(asked.size(), 1u);
  // The same kernels judged under version 2 of the spec: the incumbent's v1 records do not count.
  core::Verdict second = timed(1000, 20000, k_toolchain, 2);
  referee.judge(candidate("b"), second, &open,
                f.prepare([] { return timed(2000, 40000, k_toolchain, 2); }, &asked));
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[1].size(), 2u) << "timed again on both bench workloads";
  store::TuningRepository tuning(*f.db);
  auto all = tuning.find({"vector_add", "f32", "cpu", util::sha256_hex(f.incumbent_source), true});
  ASSERT_TRUE(all);
  int stale = 0, fresh = 0;
  for (const auto& r : *all) {
    (r.stale ? stale : fresh)++;
    EXPECT_EQ(r.stale, r.identity.spec_version == 1) << r.identity.spec_version;
  }
  EXPECT_EQ(stale, 2);
  EXPECT_EQ(fresh, 2);
}

TEST(Referee, AnIncumbentOfAnotherVersionCountsOnlyOnceRevalidated) {
  // The incumbent was promoted under spec v1; a candidate is judged under v2. Each comparison
  // re-validates it under v2; failing that version because of its code, it does not count.
  Fixture f;
  auto head = f.repo->head();
  ASSERT_TRUE(head);
  auto dispatch = parse_dispatch(*f.repo->read("dispatch.json"));
  ASSERT_TRUE(dispatch);
  DispatchEntry e = *dispatch->find("vector_add", "f32", "cpu", "any");
  e.spec_version = 1;
  dispatch->upsert(e);
  ASSERT_TRUE(f.repo->commit(*head, {{"dispatch.json", dispatch_text(*dispatch)}}, "incumbent of spec v1"));
  Referee referee(*f.repo, *f.db);
  CannedEvaluation open(f.spec(), timed(5000, 100000, k_toolchain, 2));
  core::Verdict v = timed(5000, 100000, k_toolchain, 2);
  referee.judge(candidate("a"), v, &open, f.prepare([] {
    core::Verdict wrong = timed(1, 1, k_toolchain, 2);
    wrong.status = core::Status::incorrect;
    wrong.reason = "wrong on 2 of 9 test workloads";
    return wrong;
  }, nullptr));
  ASSERT_TRUE(v.summary.beats_incumbent);
  EXPECT_TRUE(*v.summary.beats_incumbent) << v.reason;
  EXPECT_NE(v.reason.find("(promoted under spec v1) does not pass spec v2: it does not count"), std::string::npos)
      << v.reason;
  // Accepted under the new version: it counts, and the reason says it was re-validated.
  core::Verdict w = timed(5000, 100000, k_toolchain, 2);
  referee.judge(candidate("b"), w, &open, f.prepare([] { return timed(5000, 100000, k_toolchain, 2); }, nullptr));
  EXPECT_NE(w.reason.find("was re-validated against spec v2"), std::string::npos) << w.reason;
}

}  // namespace
}  // namespace kwb::library
