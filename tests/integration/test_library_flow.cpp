// The library loop over real HTTP (issue #6): winners beat a deliberately slow incumbent, one of
// two concurrent promotions commits and the other gets a conflict, the commit carries trailers
// and updates dispatch.json, slower and incorrect candidates are refused with 409 and the
// reason (`kwb ci promote`: test_ci_promote.cpp); auto-promotion; one pass.
// The spec is the shipped vector_add with light bench workloads (n1M, n2M: light_bench_specs.hpp);
// with n16M, the 10x slow incumbent made each candidate's decide stage a minute on a loaded machine.
#include <gtest/gtest.h>
#include <httplib.h>

#include <future>
#include <nlohmann/json.hpp>

#include "library_flow.hpp"
#include "library/device_class.hpp"
#include "library/dispatch.hpp"
#include "library/repository.hpp"

namespace {

using namespace kwb::test;

TEST_F(LibraryFlow, WinnersPromoteInOneCommitAndLosersAreRefused) {
  std::string a = submit(fast("winner a"), "restrict-qualified loop");
  std::string b = submit(fast("winner b"));
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  auto va = verdict(a), vb = verdict(b);
  for (const auto& v : {va, vb}) {
    ASSERT_EQ(v["status"], "accepted") << v.dump(2);
    ASSERT_EQ(v["summary"]["beats_incumbent"], true) << v["reason"];
    EXPECT_EQ(v["summary"]["incumbent"]["kernel"], "vector_add/cpu/scalar.cpp");
    EXPECT_GT(v["summary"]["geomean_vs_incumbent"].get<double>(), 1.0);
    for (const auto& w : v["workloads"])  // each compared (a loaded machine can blur the cache-sized one)
      if (w["kind"] == "bench") EXPECT_TRUE(w["vs_incumbent"].is_number()) << w.dump();
  }

  // Both promoted at once: one commits, the other was measured against a replaced incumbent.
  auto pa = std::async(std::launch::async, [&] { return promote(a); });
  auto pb = std::async(std::launch::async, [&] { return promote(b); });
  auto ra = pa.get(), rb = pb.get();
  ASSERT_TRUE(ra && rb);
  ASSERT_EQ((ra->status == 200) + (rb->status == 200), 1) << ra->body << "\n" << rb->body;
  bool a_won = ra->status == 200;
  auto& lost = a_won ? rb : ra;
  EXPECT_EQ(lost->status, 409);
  EXPECT_EQ(body_of(lost)["error"]["type"], "conflict") << lost->body;
  EXPECT_NE(lost->body.find("changed since this candidate was measured"), std::string::npos) << lost->body;
  std::string winner = a_won ? a : b;
  std::string commit = body_of(a_won ? ra : rb)["commit"];

  // git log: the seed commit and one promotion with the trailers; dispatch.json names the winner.
  auto repo = kwb::library::Repository::open(m_daemon.workspace() / "library");
  ASSERT_TRUE(repo) << repo.error().what();
  auto log = (*repo)->log();
  ASSERT_TRUE(log);
  ASSERT_EQ(log->size(), 2u);
  const auto& c = log->front();
  EXPECT_EQ(c.id, commit);
  EXPECT_EQ(c.trailers.at("Kwb-Candidate"), winner);
  EXPECT_EQ(c.trailers.at("Kwb-Op"), "vector_add");
  EXPECT_EQ(c.trailers.at("Kwb-Replaces"), "vector_add/cpu/scalar.cpp");
  EXPECT_GT(std::stod(c.trailers.at("Kwb-Speedup")), 1.0);
  EXPECT_FALSE(c.trailers.at("Kwb-Device").empty());
  auto d = kwb::library::parse_dispatch(*(*repo)->read("dispatch.json"));
  ASSERT_TRUE(d);
  std::string kernel = "vector_add/cpu/f32_" + winner + ".cpp";
  // Recorded under this CPU's class, with its x86-64 level (cpu-x86_64-v3 on an AVX2 machine).
  auto* entry = d->find("vector_add", "f32", "cpu", kwb::library::host_cpu_class());
  ASSERT_NE(entry, nullptr) << *(*repo)->read("dispatch.json");
  EXPECT_EQ(entry->kernel, kernel);
  EXPECT_EQ(entry->candidate, winner);
  EXPECT_EQ(entry->configs.size(), 2u);
  EXPECT_EQ(*(*repo)->read(kernel), fast(a_won ? "winner a" : "winner b"));
  auto meta = nlohmann::json::parse(*(*repo)->read("vector_add/cpu/f32_" + winner + ".json"));
  EXPECT_EQ(meta["evidence"]["replaces"], "vector_add/cpu/scalar.cpp");
  EXPECT_EQ(meta["evidence"]["workloads"].size(), 2u);

  // GET /v1/library/{op} shows the new incumbent and the history.
  auto lib = body_of(client().Get("/v1/library/vector_add"));
  bool listed = false;
  for (const auto& e : lib["entries"]) listed = listed || e["kernel"] == kernel;
  EXPECT_TRUE(listed) << lib.dump(2);
  EXPECT_EQ(lib["history"][0]["trailers"]["Kwb-Candidate"], winner);
  EXPECT_EQ(body_of(promote(winner))["error"]["type"], "conflict");  // already promoted

  // Slower than the new incumbent, and incorrect: 409 with the reason.
  std::string slow = submit(std::string("// slower now\n") + k_slow);
  auto vs = verdict(slow);
  ASSERT_EQ(vs["status"], "accepted") << vs.dump(2);
  EXPECT_EQ(vs["summary"]["beats_incumbent"], false);
  auto rs = promote(slow);
  ASSERT_TRUE(rs);
  EXPECT_EQ(rs->status, 409);
  EXPECT_EQ(body_of(rs)["error"]["type"], "not_promotable");
  EXPECT_NE(rs->body.find("does not beat the incumbent"), std::string::npos) << rs->body;
  std::string wrong = submit("#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, "
                             "float* c, int64_t n) { for (int64_t i = 0; i < n; ++i) c[i] = a[i] - b[i]; }\n");
  EXPECT_EQ(verdict(wrong)["status"], "incorrect");
  auto rw = promote(wrong);
  ASSERT_TRUE(rw);
  EXPECT_EQ(rw->status, 409);
  EXPECT_NE(rw->body.find("incorrect"), std::string::npos) << rw->body;
  EXPECT_EQ((*(*repo)->log()).size(), 2u);  // nothing else was committed

  // Review: the diff and the leaderboard; a rejection needs a reason and happens once.
  auto diff = body_of(client().Get("/v1/candidates/" + slow + "/diff"));
  EXPECT_EQ(diff["incumbent"]["kernel"], kernel);
  EXPECT_NE(diff["diff"].get<std::string>().find("+++ b/vector_add/cpu/f32_" + slow + ".cpp"), std::string::npos)
      << diff.dump(2);
  EXPECT_EQ(diff["workloads"].size(), 2u);
  auto board = body_of(client().Get("/v1/leaderboard/vector_add"));
  ASSERT_GE(board["candidates"].size(), 3u);
  EXPECT_GE(board["candidates"][0]["geomean_vs_incumbent"].get<double>(), 1.0);
  EXPECT_EQ(client().Post("/v1/candidates/" + slow + "/reject", "{}", "application/json")->status, 400);
  EXPECT_EQ(client().Post("/v1/candidates/" + slow + "/reject", R"({"reason": "slower"})", "application/json")->status, 200);
  EXPECT_EQ(client().Post("/v1/candidates/" + slow + "/reject", R"({"reason": "again"})", "application/json")->status, 409);
}

TEST_F(LibraryFlow, AutoPromoteCommitsAWinnerBeforeItsDecisionIsVisible) {
  m_daemon.stop();
  std::string error;
  ASSERT_TRUE(m_daemon.start({"--no-auth", "--time-budget-ms", "150", "--kernels-dir", m_kernels.string(),
                              "--specs-dir", m_specs.string(), "--auto-promote", "vector_add"},
                             m_root / "ws", &error))
      << error;
  std::string a = submit(fast("auto"));
  auto v = verdict(a);
  ASSERT_EQ(v["summary"]["beats_incumbent"], true);
  EXPECT_NE(v["reason"].get<std::string>().find("auto-promoted in library commit"), std::string::npos) << v["reason"];
  // Promoted before its decision became visible (the long-poll above waits for the decision):
  // no waiting needed.
  auto repo = kwb::library::Repository::open(m_root / "ws" / "library");
  ASSERT_TRUE(repo);
  ASSERT_EQ((*repo)->log()->size(), 2u) << m_daemon.log();
  auto head = (*repo)->log()->front();
  EXPECT_EQ(head.trailers.at("Kwb-Candidate"), a);
  EXPECT_EQ(head.trailers.at("Kwb-Reviewer"), "auto-promote");
  EXPECT_EQ(body_of(promote(a))["error"]["type"], "conflict");  // decided already
}

// One pass (docs/library.md "One pass"): the candidate's bench times come from block pairs
// interleaved with a warm incumbent, which the first candidate prepares and the next reuses; the
// verdict is stored before the decision, which follows as its own event.
TEST_F(LibraryFlow, OnePassTimesTheCandidateAgainstAWarmIncumbentAndTheDecisionFollowsTheVerdict) {
  std::string first = submit(fast("one pass 1"));
  ASSERT_FALSE(first.empty());
  auto v1 = verdict(first);
  ASSERT_EQ(v1["status"], "accepted") << v1.dump(2);
  EXPECT_TRUE(v1["summary"]["stage_ms"].contains("incumbent_prepare")) << "the first prepares the warm incumbent";
  for (const auto& w : v1["workloads"]) {
    if (w["kind"] != "bench") continue;
    EXPECT_TRUE(w["time"]["interleaved"].get<bool>()) << w.dump();
    ASSERT_TRUE(w["comparison"].is_object()) << w.dump();
    // The comparison's blocks include those that timed the candidate for its verdict.
    EXPECT_GE(w["comparison"]["samples"].get<int>(), w["time"]["samples"].get<int>()) << w.dump();
    EXPECT_GE(w["comparison"]["blocks"].get<int>(), 9) << "the stopping rule's first look" << w.dump();
  }
  std::string second = submit(fast("one pass 2"));
  auto v2 = verdict(second);
  ASSERT_EQ(v2["status"], "accepted") << v2.dump(2);
  EXPECT_FALSE(v2["summary"]["stage_ms"].contains("incumbent_prepare")) << "the warm incumbent was prepared again";
  EXPECT_EQ(v2["summary"]["beats_incumbent"], true) << v2["reason"];
  // The events: the verdict (its comparison pending), then the comparison's decision.
  auto events = body_of(client().Get("/v1/candidates/" + second + "/events?wait=1"));
  std::vector<std::string> order;
  for (const auto& e : events["events"]) {
    if (e["kind"] == "verdict") order.push_back("verdict:" + e["data"].value("comparison", std::string()));
    if (e["kind"] == "comparison") order.push_back(std::string("comparison:") + (e["data"]["promotable"].get<bool>() ? "promotable" : "not"));
  }
  EXPECT_EQ(order, (std::vector<std::string>{"verdict:pending", "comparison:promotable"})) << events.dump(2);
  auto cand = body_of(client().Get("/v1/candidates/" + second));
  EXPECT_EQ(cand["comparison"]["state"], "done");
  EXPECT_EQ(cand["comparison"]["promotable"], true);
}

}  // namespace
