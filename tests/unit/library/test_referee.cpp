// The decide stage against the library: records are used only under the exact identity, a
// changed toolchain makes them stale and re-times the incumbent, and the margin follows the noise.
#include <gtest/gtest.h>

#include "library/referee.hpp"
#include "store/tuning_repository.hpp"
#include "temp_dir.hpp"
#include "util/hash.hpp"

namespace kwb::library {
namespace {

using kwb::test::TempDir;

const std::string k_toolchain = "g++ 12.2.0 -std=c++20 -O3";

core::Verdict timed(double n1m_ns, double n16m_ns, const std::string& toolchain = k_toolchain, double stderr_pct = 0.2) {
  core::Verdict v;
  v.op = "vector_add";
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
    t.mean_stderr_pct = stderr_pct;
    t.samples = 50;
    w.time = t;
    v.workloads.push_back(w);
  }
  return v;
}

struct Fixture {
  TempDir dir;
  std::unique_ptr<Repository> repo;
  std::optional<store::Database> db;
  std::string incumbent_source;
  Fixture() {
    auto r = Repository::open_or_seed(dir / "lib", std::filesystem::path(KWB_TEST_SOURCE_DIR) / "kernels");
    if (!r) throw std::runtime_error(r.error().what());
    repo = std::move(*r);
    auto d = store::Database::open(dir / "kwb.db");
    if (!d) throw std::runtime_error(d.error().what());
    db.emplace(std::move(*d));
    incumbent_source = *repo->read("vector_add/cpu/vectorized.cpp");
  }
};

core::Candidate candidate(const std::string& tag) {
  return {"c-00000000000000aa", "vector_add", "f32", "cpu", "// " + tag + "\n", "cand.cpp", {}, ""};
}

TEST(Referee, RetimesTheIncumbentWithoutRecordsThenUsesThem) {
  Fixture f;
  Referee referee(*f.repo, *f.db);
  int measured = 0;
  auto measure = [&](const core::Candidate& inc) {
    ++measured;
    EXPECT_EQ(inc.source, f.incumbent_source);
    return timed(2000, 40000);
  };
  core::Verdict v = timed(1000, 20000);
  referee.judge(candidate("a"), v, measure);
  EXPECT_EQ(measured, 1);
  ASSERT_TRUE(v.summary.beats_incumbent);
  EXPECT_TRUE(*v.summary.beats_incumbent) << v.reason;
  EXPECT_NEAR(*v.summary.geomean_vs_incumbent, 2.0, 1e-9);
  EXPECT_NEAR(*v.workloads[1].vs_incumbent, 2.0, 1e-9);
  ASSERT_TRUE(v.summary.incumbent);
  EXPECT_EQ(v.summary.incumbent->kernel, "vector_add/cpu/vectorized.cpp");
  EXPECT_TRUE(v.summary.incumbent->remeasured);
  EXPECT_NE(v.reason.find("beats the incumbent"), std::string::npos) << v.reason;

  core::Verdict w = timed(4000, 80000);  // slower: its records exist now, no re-timing
  referee.judge(candidate("b"), w, measure);
  EXPECT_EQ(measured, 1);
  EXPECT_FALSE(*w.summary.beats_incumbent);
  EXPECT_FALSE(w.summary.incumbent->remeasured);
  EXPECT_NE(w.reason.find("slower by 50.0%"), std::string::npos) << w.reason;
}

TEST(Referee, AChangedToolchainMakesTheRecordsStaleAndUnused) {
  Fixture f;
  Referee referee(*f.repo, *f.db);
  int measured = 0;
  core::Verdict first = timed(1000, 20000);
  referee.judge(candidate("a"), first, [&](const core::Candidate&) { return ++measured, timed(2000, 40000); });
  ASSERT_EQ(measured, 1);

  // Same kernels, another compiler version: the incumbent's old records must not count.
  const std::string other = "g++ 13.1.0 -std=c++20 -O3";
  core::Verdict second = timed(1000, 20000, other);
  referee.judge(candidate("c"), second, [&](const core::Candidate&) { return ++measured, timed(900, 18000, other); });
  EXPECT_EQ(measured, 2);
  EXPECT_TRUE(second.summary.incumbent->remeasured);
  EXPECT_FALSE(*second.summary.beats_incumbent) << second.reason;  // against the new timing: slower

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
  auto current = tuning.current("vector_add", "f32", "cpu", util::sha256_hex(f.incumbent_source),
                                {second.device, other, KWB_VERSION});
  ASSERT_TRUE(current);
  EXPECT_EQ(current->at("n16M").median_ns, 18000);
}

TEST(Referee, AWinInsideTheNoiseIsNotAWin) {
  Fixture f;
  Referee referee(*f.repo, *f.db);
  core::Verdict v = timed(1000, 20000, k_toolchain, 3.0);  // 3% standard error
  referee.judge(candidate("a"), v, [&](const core::Candidate&) { return timed(1080, 21600, k_toolchain, 3.0); });
  EXPECT_NEAR(*v.summary.geomean_vs_incumbent, 1.08, 1e-9);
  EXPECT_FALSE(*v.summary.beats_incumbent) << "8% is within 3 sigma of 3%+3% noise: " << v.reason;
}

TEST(Referee, IdenticalSourceAndRejectedVerdictsAreNotCompared) {
  Fixture f;
  Referee referee(*f.repo, *f.db);
  int measured = 0;
  auto measure = [&](const core::Candidate&) { return ++measured, timed(1, 1); };
  core::Candidate same = candidate("x");
  same.source = f.incumbent_source;
  core::Verdict v = timed(1000, 20000);
  referee.judge(same, v, measure);
  EXPECT_FALSE(*v.summary.beats_incumbent);
  EXPECT_NE(v.reason.find("identical to the incumbent"), std::string::npos);
  core::Verdict bad = timed(1000, 20000);
  bad.status = core::Status::incorrect;
  referee.judge(candidate("y"), bad, measure);
  EXPECT_FALSE(bad.summary.beats_incumbent);
  EXPECT_EQ(measured, 0);
}

TEST(Referee, AnIncumbentThisMachineCannotRunIsNotBeaten) {
  Fixture f;
  Referee referee(*f.repo, *f.db);
  core::Verdict v = timed(5000, 100000);  // 5x slower than anything
  referee.judge(candidate("a"), v, [&](const core::Candidate&) {
    core::Verdict bad = timed(1, 1);
    bad.status = core::Status::no_device;
    bad.reason = "no CUDA device";
    return bad;
  });
  EXPECT_FALSE(v.summary.beats_incumbent) << v.reason;
  EXPECT_NE(v.reason.find("could not be re-timed (no_device"), std::string::npos) << v.reason;
  core::Verdict w = timed(5000, 100000);
  referee.judge(candidate("b"), w, [&](const core::Candidate&) {
    core::Verdict wrong = timed(1, 1);
    wrong.status = core::Status::incorrect;
    wrong.reason = "wrong on 1 of 9 test workloads";
    return wrong;
  });
  EXPECT_TRUE(*w.summary.beats_incumbent) << "an incumbent that fails the spec loses its place: " << w.reason;
}

TEST(Referee, OneSampleNeverWinsButARegressionStillCounts) {
  Fixture f;
  Referee referee(*f.repo, *f.db);
  auto one_sample = [](double a, double b) {
    core::Verdict v = timed(a, b, k_toolchain, 0.0);
    for (auto& w : v.workloads) w.time->samples = 1;
    return v;
  };
  core::Verdict v = one_sample(1000, 20000);
  referee.judge(candidate("a"), v, [&](const core::Candidate&) { return one_sample(1200, 24000); });
  EXPECT_FALSE(*v.summary.beats_incumbent) << v.reason;  // 1.2x, but from single samples
  Fixture g;
  Referee other(*g.repo, *g.db);
  core::Verdict r = timed(1000, 40000, k_toolchain, 5.0);  // n16M 2x slower, noisy and few samples
  for (auto& w : r.workloads) w.time->samples = 3;
  other.judge(candidate("b"), r, [&](const core::Candidate&) {
    core::Verdict i = timed(2000, 20000, k_toolchain, 5.0);
    for (auto& w : i.workloads) w.time->samples = 3;
    return i;
  });
  EXPECT_FALSE(*r.summary.beats_incumbent) << r.reason;
  EXPECT_NE(r.reason.find("n16M slower by 50.0%"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace kwb::library
