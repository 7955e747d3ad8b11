// Crash safety: `kill -9` of the daemon with 20 candidates in flight; after a restart every one
// reaches exactly one verdict (one verdict event, state done), none is lost. The spec is the
// shipped vector_add with light bench workloads (light_bench_specs.hpp): every stage still runs,
// the decide stage against the shipped incumbent included, at a fifth of the cost.
#include <httplib.h>

#include <gtest/gtest.h>

#include <set>

#include "daemon_support.hpp"
#include "light_bench_specs.hpp"

namespace {

using namespace kwb::test;

TEST(DaemonCrash, KillNineWithTwentyInFlightLosesNothing) {
  char tmpl[] = "/tmp/kwb-daemon-crash-XXXXXX";
  ASSERT_TRUE(::mkdtemp(tmpl));
  const std::filesystem::path root = tmpl;
  const std::vector<std::string> args = {"--no-auth", "--time-budget-ms", "20", "--specs-dir",
                                         light_vector_add_specs(root).string()};
  DaemonProcess d;
  d.start(args, root / "ws");
  ASSERT_TRUE(d.running()) << d.log();
  httplib::Client c("127.0.0.1", d.port());
  c.set_read_timeout(120, 0);
  std::vector<std::string> ids;
  for (int i = 0; i < 20; ++i) {
    std::string src = "#include <cstdint>\n// crash test " + std::to_string(i) +
                      "\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) "
                      "{ for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i]; }\n";
    auto r = c.Post("/v1/candidates", nlohmann::json{{"op", "vector_add"}, {"source", src}}.dump(), "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 202) << r->body;
    ids.push_back(nlohmann::json::parse(r->body)["id"]);
  }
  // Wait (bounded) until work is really in flight, then kill -9.
  bool in_flight = false;
  for (int i = 0; i < 400 && !in_flight; ++i) {
    auto list = nlohmann::json::parse(c.Get("/v1/candidates?limit=50")->body);
    for (const auto& item : list["items"]) {
      std::string s = item["state"];
      if (s != "queued" && s != "done" && s != "cancelled") in_flight = true;
    }
    if (!in_flight) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(in_flight);
  d.kill_hard();

  d.start(args, d.workspace());
  ASSERT_TRUE(d.running()) << d.log();
  httplib::Client c2("127.0.0.1", d.port());
  c2.set_read_timeout(300, 0);
  int retried = 0;
  for (const auto& id : ids) {
    auto got = nlohmann::json::parse(c2.Get("/v1/candidates/" + id + "?wait=60")->body);
    EXPECT_EQ(got["state"], "done") << id << ": " << got.dump();
    EXPECT_EQ(got["verdict"]["status"], "accepted") << id << ": " << got["verdict"].dump(2);
    if (got["attempts"].get<int>() > 1) ++retried;
    auto events = nlohmann::json::parse(c2.Get("/v1/candidates/" + id + "/events?wait=0")->body);
    int verdicts = 0;
    for (const auto& e : events["events"]) verdicts += e["kind"] == "verdict";
    EXPECT_EQ(verdicts, 1) << id << " has " << verdicts << " verdict events";
  }
  EXPECT_GE(retried, 1) << "no candidate was caught mid-stage by the kill";
  // Nothing else appeared: still exactly the 20 candidates.
  auto list = nlohmann::json::parse(c2.Get("/v1/candidates?limit=100")->body);
  std::set<std::string> listed;
  for (const auto& item : list["items"]) listed.insert(item["id"]);
  EXPECT_EQ(listed, std::set<std::string>(ids.begin(), ids.end()));
  d.stop();
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
}

}  // namespace
