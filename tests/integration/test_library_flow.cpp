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
#include "library/dispatch.hpp"
#include "library/repository.hpp"

namespace {

using namespace kwb::test;

// The test incumbent: deliberately ~10x slow (eight volatile round trips per element), so a
// winner's margin dwarfs any timing noise of a loaded two-core CI machine.
const char* k_slow = R"(// vector_add, CPU: deliberately slow, the test incumbent.
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    volatile float x = a[i];
    for (int r = 0; r < 8; ++r) x = x;
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
  auto* entry = d->incumbent("vector_add", "f32", "cpu", "cpu-x86_64");
  ASSERT_NE(entry, nullptr);
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
  // Two pending winners with the same source: once the first is promoted, the second is
  // identical to the incumbent and cannot win (no timing luck involved).
  std::string a = submit(fast("ci"));
  std::string b = submit(fast("ci"));
  ASSERT_EQ(verdict(a)["summary"]["beats_incumbent"], true);
  ASSERT_EQ(verdict(b)["summary"]["beats_incumbent"], true);
  m_daemon.stop();
  // The first pending winner is promoted; the second then no longer wins: a failure in both
  // reports and exit status 1. (The policy file only shows that one is read.)
  auto json = m_root / "ci.json", junit = m_root / "ci.xml", policy = m_root / "policy.json";
  std::ofstream(policy) << R"({"min_gain_pct": 2})";
  auto r = run_command((bin_dir() / "kwb").string() + " ci promote --workspace " + shell_quote((m_root / "ws").string()) +
                       " --kernels-dir " + shell_quote(m_kernels.string()) + " --specs-dir " +
                       shell_quote(m_specs.string()) + " --time-budget-ms 150 --policy " + shell_quote(policy.string()) + " --report-json " +
                       shell_quote(json.string()) + " --junit " + shell_quote(junit.string()));
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
  EXPECT_NE(report["final_commit"], report["started_commit"]);
  std::string xml = read_text(junit);
  EXPECT_NE(xml.find("<testsuites name=\"kwb ci promote\" tests=\"2\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"" + a + "\""), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"no_longer_wins\""), std::string::npos) << xml;
  auto repo = kwb::library::Repository::open(m_root / "ws" / "library");
  ASSERT_TRUE(repo);
  EXPECT_EQ((*repo)->log()->front().trailers.at("Kwb-Reviewer"), "ci");
  // A second run has nothing pending and succeeds.
  auto again = run_command((bin_dir() / "kwb").string() + " ci promote --workspace " +
                           shell_quote((m_root / "ws").string()) + " --kernels-dir " + shell_quote(m_kernels.string()) +
                           " --specs-dir " + shell_quote(m_specs.string()));
  EXPECT_EQ(again.exit_code, 0) << again.out;
}

TEST_F(LibraryFlow, AutoPromoteCommitsAWinnerBeforeItsVerdictIsVisible) {
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
  // Promoted in the decide stage, before the verdict became visible: no waiting needed.
  auto repo = kwb::library::Repository::open(m_root / "ws" / "library");
  ASSERT_TRUE(repo);
  ASSERT_EQ((*repo)->log()->size(), 2u) << m_daemon.log();
  auto head = (*repo)->log()->front();
  EXPECT_EQ(head.trailers.at("Kwb-Candidate"), a);
  EXPECT_EQ(head.trailers.at("Kwb-Reviewer"), "auto-promote");
  EXPECT_EQ(body_of(promote(a))["error"]["type"], "conflict");  // decided already
}

}  // namespace
