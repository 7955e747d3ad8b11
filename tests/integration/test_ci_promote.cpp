// `kwb ci promote` over the library loop (issue #6): pending winners re-validated, the winner
// promoted in one commit, JSON and JUnit reports written (the rig: library_flow.hpp).
#include <gtest/gtest.h>
#include <httplib.h>

#include <future>
#include <nlohmann/json.hpp>

#include "library/device_class.hpp"
#include "library/dispatch.hpp"
#include "library/repository.hpp"
#include "library_flow.hpp"

namespace {

using namespace kwb::test;

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

}  // namespace
