// The library loop over real HTTP (issue #6): winners beat a deliberately slow incumbent, one of
// two concurrent promotions commits and the other gets a conflict, the commit carries trailers
// and updates dispatch.json, slower and incorrect candidates are refused with 409 and the
// reason; then `kwb ci promote` re-validates pending winners and writes JSON and JUnit reports.
// The spec is the shipped vector_add with light bench workloads (n1M, n2M: light_bench_specs.hpp);
// with n16M, the 10x slow incumbent made each candidate's decide stage a minute on a loaded machine.
#include <gtest/gtest.h>
#include <httplib.h>

#include <future>
#include <nlohmann/json.hpp>

#include "daemon_support.hpp"
#include "light_bench_specs.hpp"
#include "library/device_class.hpp"
#include "library/dispatch.hpp"
#include "library/repository.hpp"

namespace {

using namespace kwb::test;

// The test incumbent: deliberately ~40x slow (32 volatile round trips per element), so a
// winner's margin dwarfs any timing noise of a loaded two-core CI machine. (With 8, ~10x, a
// memory-bound winner timed beside other tests read n1M 2.73x [0.815, 9.01] in a full ctest -j2:
// a correct refusal to decide, and a failed test.)
const char* k_slow = R"(// vector_add, CPU: deliberately slow, the test incumbent.
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    volatile float x = a[i];
    for (int r = 0; r < 32; ++r) x = x;
    c[i] = x + b[i];
  }
}
)";

std::string fast(const std::string& tag) {
  return "// " + tag + "\n#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float* __restrict a, "
         "const float* __restrict b, float* __restrict c, int64_t n) { for (int64_t i = 0; i < n; ++i) c[i] = a[i] + "
         "b[i]; }\n";
}

// A kernels/ folder whose only kernel is the slow vector_add.
std::filesystem::path slow_kernels(const std::filesystem::path& root) {
  auto dir = root / "kernels" / "vector_add" / "cpu";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "scalar.cpp") << k_slow;
  std::ofstream(dir / "scalar.json") << R"({"op": "vector_add", "variant": "f32", "backend": "cpu",
    "entry": "kwb_vector_add_f32", "summary": "slow test incumbent", "author": "test"})";
  return root / "kernels";
}

nlohmann::json body_of(const httplib::Result& r) {
  return r ? nlohmann::json::parse(r->body, nullptr, false) : nlohmann::json();
}

class LibraryFlow : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kwb-library-flow-XXXXXX";
    ASSERT_TRUE(::mkdtemp(tmpl));
    m_root = tmpl;
    m_kernels = slow_kernels(m_root);
    m_specs = light_vector_add_specs(m_root);
    std::string error;
    ASSERT_TRUE(m_daemon.start({"--no-auth", "--time-budget-ms", "150", "--kernels-dir", m_kernels.string(),
                                "--specs-dir", m_specs.string()},
                               m_root / "ws", &error))
        << error;
  }
  void TearDown() override {
    m_daemon.stop();
    std::error_code ec;
    std::filesystem::remove_all(m_root, ec);
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", m_daemon.port());
    c.set_read_timeout(180, 0);
    return c;
  }
  std::string submit(const std::string& source, const std::string& note = "") {
    auto r = client().Post("/v1/candidates", nlohmann::json{{"op", "vector_add"}, {"source", source}, {"note", note}}.dump(),
                           "application/json");
    if (!r || r->status != 202) return "";
    return body_of(r)["id"];
  }
  nlohmann::json verdict(const std::string& id) {
    for (int i = 0; i < 10; ++i) {
      auto r = client().Get("/v1/candidates/" + id + "?wait=60");
      auto j = body_of(r);
      if (j.is_object() && j["state"] == "done") return j["verdict"];
    }
    return {};
  }
  httplib::Result promote(const std::string& id) { return client().Post("/v1/candidates/" + id + "/promote", "", "application/json"); }

  std::filesystem::path m_root, m_kernels, m_specs;
  DaemonProcess m_daemon;
};

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

TEST_F(LibraryFlow, CiPromoteRevalidatesPendingWinnersAndWritesReports) {
  // Three pending winners with the same source: once the first is promoted, the others are
  // identical to the incumbent and cannot win (no timing luck involved).
  std::string a = submit(fast("ci"));
  std::string b = submit(fast("ci"));
  std::string c = submit(fast("ci"));
  ASSERT_EQ(verdict(a)["summary"]["beats_incumbent"], true) << verdict(a)["reason"];
  ASSERT_EQ(verdict(b)["summary"]["beats_incumbent"], true) << verdict(b)["reason"];
  ASSERT_EQ(verdict(c)["summary"]["beats_incumbent"], true) << verdict(c)["reason"];

  // The reviewer's view (issue 17, point 7): the three are pending review, with their evidence,
  // and the leaderboard groups them as one source.
  auto review = body_of(client().Get("/v1/review"));
  ASSERT_EQ(review["pending"], 3) << review.dump(2);
  EXPECT_EQ(review["candidates"][0]["id"], a);  // oldest first
  for (const auto& row : review["candidates"]) {
    EXPECT_EQ(row["op"], "vector_add");
    EXPECT_EQ(row["beats_incumbent"], true);
    EXPECT_EQ(row["needs_reviewer"], false);
    EXPECT_EQ(row["bench_subset"], false);
    ASSERT_EQ(row["workloads"].size(), 2u) << row.dump(2);
    for (const auto& w : row["workloads"]) {
      EXPECT_GT(w["samples"].get<int>(), 0) << w.dump();
      EXPECT_TRUE(w["stderr_pct"].is_number()) << w.dump();
      if (!w["comparison"].is_object()) continue;  // the decide stage may stop early on a workload
      EXPECT_LE(w["comparison"]["low"].get<double>(), w["comparison"]["high"].get<double>());
      EXPECT_GT(w["comparison"]["samples"].get<int>(), 0);
    }
  }
  EXPECT_EQ(body_of(client().Get("/v1/review?op=nope"))["error"]["type"], "bad_parameter");
  auto board = body_of(client().Get("/v1/leaderboard/vector_add"));
  EXPECT_EQ(board["distinct_sources"], 1) << board.dump(2);
  ASSERT_EQ(board["candidates"].size(), 3u);
  const std::string leader = board["candidates"][0]["id"];
  EXPECT_TRUE(board["candidates"][0]["same_source_as"].is_null());
  EXPECT_EQ(board["candidates"][1]["same_source_as"], leader);
  EXPECT_EQ(board["candidates"][2]["same_source_as"], leader);
  auto diff = body_of(client().Get("/v1/candidates/" + a + "/diff"));
  EXPECT_EQ(diff["same_source"].size(), 2u) << diff.dump(2);
  auto cli = run_command((bin_dir() / "kwb").string() + " leaderboard vector_add --server " + m_daemon.url());
  EXPECT_EQ(cli.exit_code, 0) << cli.out;
  EXPECT_NE(cli.out.find("(same source as " + leader + ")"), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find(" n="), std::string::npos) << cli.out;  // the sample counts
  auto cli_review = run_command((bin_dir() / "kwb").string() + " review --server " + m_daemon.url());
  EXPECT_EQ(cli_review.exit_code, 0) << cli_review.out;
  EXPECT_NE(cli_review.out.find("3 winners pending review"), std::string::npos) << cli_review.out;
  // `kwb diff` shows the author, the identical sources and per workload the ± and the samples.
  auto cli_diff = run_command((bin_dir() / "kwb").string() + " diff " + a + " --server " + m_daemon.url());
  EXPECT_EQ(cli_diff.exit_code, 0) << cli_diff.out;
  for (const char* part : {"author: ", "identical source: ", "±", "samples"})
    EXPECT_NE(cli_diff.out.find(part), std::string::npos) << part << " in:\n" << cli_diff.out;
  m_daemon.stop();

  const std::string ws = " --workspace " + shell_quote((m_root / "ws").string()) + " --kernels-dir " +
                         shell_quote(m_kernels.string()) + " --specs-dir " + shell_quote(m_specs.string());
  // --dry-run: lists the three from their stored verdicts and does nothing else.
  auto dry_json = m_root / "dry.json";
  auto dry = run_command((bin_dir() / "kwb").string() + " ci promote --dry-run" + ws + " --report-json " +
                         shell_quote(dry_json.string()));
  EXPECT_EQ(dry.exit_code, 0) << dry.out;
  EXPECT_NE(dry.out.find("would     " + a), std::string::npos) << dry.out;
  auto dry_report = nlohmann::json::parse(read_text(dry_json), nullptr, false);
  ASSERT_TRUE(dry_report.is_object()) << read_text(dry_json);
  EXPECT_EQ(dry_report["dry_run"], true);
  ASSERT_EQ(dry_report["candidates"].size(), 3u);
  EXPECT_EQ(dry_report["candidates"][0]["outcome"], "would_revalidate");
  EXPECT_EQ(dry_report["candidates"][0]["workloads"].size(), 2u);
  EXPECT_EQ(dry_report["started_commit"], dry_report["final_commit"]);
  {
    auto unchanged = kwb::library::Repository::open(m_root / "ws" / "library");
    ASSERT_TRUE(unchanged);
    EXPECT_EQ((*unchanged)->log()->size(), 1u) << "a dry run committed";
  }

  // The first pending winner is promoted; the second then no longer wins: a failure in both
  // reports and exit status 1 (the default, --no-longer-wins fail). (The policy file only shows
  // that one is read.)
  auto json = m_root / "ci.json", junit = m_root / "ci.xml", policy = m_root / "policy.json";
  std::ofstream(policy) << R"({"min_gain_pct": 2})";
  auto r = run_command((bin_dir() / "kwb").string() + " ci promote --limit 2" + ws + " --time-budget-ms 150 --policy " +
                       shell_quote(policy.string()) + " --report-json " + shell_quote(json.string()) + " --junit " +
                       shell_quote(junit.string()));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  auto report = nlohmann::json::parse(read_text(json), nullptr, false);
  ASSERT_TRUE(report.is_object()) << read_text(json);
  EXPECT_EQ(report["schema"], "kwb.ci-promote.v1");
  ASSERT_EQ(report["candidates"].size(), 2u);
  EXPECT_EQ(report["candidates"][0]["id"], a);
  EXPECT_EQ(report["candidates"][0]["outcome"], "promoted") << report.dump(2);
  EXPECT_EQ(report["candidates"][1]["id"], b);
  EXPECT_EQ(report["candidates"][1]["outcome"], "no_longer_wins") << report.dump(2);
  EXPECT_EQ(report["summary"]["promoted"], 1);
  EXPECT_EQ(report["policy"]["min_gain_pct"], 2.0);
  EXPECT_EQ(report["policy"]["no_longer_wins"], "fail");
  EXPECT_NE(report["final_commit"], report["started_commit"]);
  // The figures per workload of the re-run (issue 17, point 8): every bench workload's median ±
  // and samples, and the interleaved comparison where the decide stage ran one (it may stop
  // early on a workload, leaving it without).
  int compared = 0;
  for (const auto& cand : report["candidates"]) {
    ASSERT_EQ(cand["workloads"].size(), 2u) << cand.dump(2);
    for (const auto& w : cand["workloads"]) {
      EXPECT_GT(w["samples"].get<int>(), 0);
      EXPECT_TRUE(w["stderr_pct"].is_number());
      if (!w["comparison"].is_object()) continue;
      ++compared;
      for (const char* k : {"ratio", "low", "high", "samples"}) EXPECT_TRUE(w["comparison"][k].is_number()) << k;
      EXPECT_TRUE(w["comparison"]["label"].is_string());
    }
  }
  EXPECT_GT(compared, 0) << report.dump(2);
  std::string xml = read_text(junit);
  EXPECT_NE(xml.find("<testsuites name=\"kwb ci promote\" tests=\"2\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"" + a + "\""), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"no_longer_wins\""), std::string::npos) << xml;
  auto repo = kwb::library::Repository::open(m_root / "ws" / "library");
  ASSERT_TRUE(repo);
  EXPECT_EQ((*repo)->log()->front().trailers.at("Kwb-Reviewer"), "ci");
  // The third no longer wins either; with --no-longer-wins pass that does not fail the job: it is
  // reported (and rejected) all the same, a skipped JUnit case.
  auto passing = run_command((bin_dir() / "kwb").string() + " ci promote --no-longer-wins pass" + ws +
                             " --time-budget-ms 150 --report-json " + shell_quote(json.string()) + " --junit " +
                             shell_quote(junit.string()));
  EXPECT_EQ(passing.exit_code, 0) << passing.out;
  auto passed = nlohmann::json::parse(read_text(json), nullptr, false);
  ASSERT_EQ(passed["candidates"].size(), 1u) << passed.dump(2);
  EXPECT_EQ(passed["candidates"][0]["id"], c);
  EXPECT_EQ(passed["candidates"][0]["outcome"], "no_longer_wins") << passed.dump(2);
  EXPECT_EQ(passed["candidates"][0]["fails_job"], false);
  EXPECT_EQ(passed["summary"]["failed"], 0);
  std::string passed_xml = read_text(junit);
  EXPECT_NE(passed_xml.find("failures=\"0\""), std::string::npos) << passed_xml;
  EXPECT_NE(passed_xml.find("<skipped message=\"no_longer_wins"), std::string::npos) << passed_xml;
  // A further run has nothing pending and succeeds.
  auto again = run_command((bin_dir() / "kwb").string() + " ci promote" + ws);
  EXPECT_EQ(again.exit_code, 0) << again.out;
  // --op is validated (issue 17, point 8): an unknown op is a usage error naming the valid ones.
  auto bad_op = run_command((bin_dir() / "kwb").string() + " ci promote --op nope" + ws + " 2>&1");
  EXPECT_EQ(bad_op.exit_code, 2) << bad_op.out;
  EXPECT_NE(bad_op.out.find("unknown op 'nope'"), std::string::npos) << bad_op.out;

  // The CI outcome reaches the agent (issue 17, point 3): GET /v1/candidates/{id} carries it, and
  // a `ci` event says when it happened.
  std::string error;
  ASSERT_TRUE(m_daemon.start({"--no-auth", "--kernels-dir", m_kernels.string(), "--specs-dir", m_specs.string()},
                             m_root / "ws", &error))
      << error;
  for (const auto& [id, outcome] : std::vector<std::pair<std::string, std::string>>{
           {a, "promoted"}, {b, "no_longer_wins"}, {c, "no_longer_wins"}}) {
    auto cand = body_of(client().Get("/v1/candidates/" + id));
    ASSERT_TRUE(cand["ci"].is_object()) << cand.dump(2);
    EXPECT_EQ(cand["ci"]["outcome"], outcome) << id;
    EXPECT_EQ(cand["decision"]["decision"], outcome == "promoted" ? "promoted" : "rejected") << cand.dump(2);
    auto page = body_of(client().Get("/v1/candidates/" + id + "/events?wait=0"));
    bool ci_event = false;
    for (const auto& e : page["events"]) ci_event |= e["kind"] == "ci" && e["data"]["outcome"] == outcome;
    EXPECT_TRUE(ci_event) << page.dump();
  }
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
