// `kwb serve` start-up and logs (issue 17 point 10, docs/api.md "Start-up" and "Logs"): a port in
// use fails before anything is created; a first start says what it does and how long it took;
// requests and verdicts are logged one line each with their ids, as JSON lines on request; an
// unknown token's 401 names the daemon's workspace.
#include <gtest/gtest.h>
#include <httplib.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "../unit/common/temp_dir.hpp"
#include "daemon_support.hpp"

namespace {

using namespace kwb::test;
namespace fs = std::filesystem;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(ServeStartup, APortInUseFailsBeforeAWorkspaceOrTokenIsCreated) {
  TempDir dir;
  const int held = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(held, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(held, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(held, 4), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(held, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int port = ntohs(addr.sin_port);
  const fs::path ws = dir / "ws";
  auto r = run_command((bin_dir() / "kwb").string() + " serve --port " + std::to_string(port) + " --workspace " +
                       shell_quote(ws.string()) + " 2>&1");
  ::close(held);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("in use"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--port"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Nothing was created"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(ws)) << "no workspace, database or admin token for a daemon that cannot listen";
}

TEST(ServeStartup, AFirstStartSaysWhatItDoesAndLogsRequestsWithTheirIds) {
  TempDir machine;  // this test's own calibration cache: the suite's already holds this CPU
  const std::string cache = (machine / "calibrations.json").string();
  DaemonProcess d;
  std::string error;
  ASSERT_TRUE(d.start({"--calibration-cache", cache}, {}, &error)) << error;
  const std::string ws = d.workspace().string();
  httplib::Client c(d.url());
  // Auth on: an unknown token is refused, naming this daemon's workspace as the likely cause.
  auto refused = c.Get("/v1/specs", {{"Authorization", "Bearer kwb_0123456789abcdef0123456789abcdef"}});
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  auto body = nlohmann::json::parse(refused->body, nullptr, false);
  EXPECT_NE(body["error"]["message"].get<std::string>().find("token unknown to this daemon's workspace " + ws),
            std::string::npos) << refused->body;
  auto health = c.Get("/v1/health");
  ASSERT_TRUE(health);
  const std::string request_id = health->get_header_value("X-Request-Id");
  EXPECT_TRUE(request_id.starts_with("r-")) << request_id;
  d.stop();
  const std::string log = d.log();
  EXPECT_NE(log.find("kwb serve: creating workspace " + ws), std::string::npos) << log;
  EXPECT_NE(log.find("kwb serve: seeding the library " + ws + "/library from "), std::string::npos) << log;
  EXPECT_NE(log.find("kwb serve: library seeded in "), std::string::npos) << log;
  // The calibration is announced before it runs, then timed.
  const size_t announce = log.find("for the roofline: one-thread copy bandwidth");
  const size_t done = log.find("kwb serve: CPU calibrated in ");
  ASSERT_NE(announce, std::string::npos) << log;
  ASSERT_NE(done, std::string::npos) << log;
  EXPECT_LT(announce, done) << log;
  EXPECT_NE(log.find("GB/s"), std::string::npos) << log;
  EXPECT_NE(log.find("started in "), std::string::npos) << log;
  EXPECT_TRUE(fs::exists(cache)) << "the calibration was not kept for this machine's other workspaces";
  // One info line per request, with its id, the status and (for a refusal) the error type.
  EXPECT_NE(log.find("[info] http request=" + request_id + " method=GET path=/v1/health status=200 ms="),
            std::string::npos) << log;
  EXPECT_NE(log.find("method=GET path=/v1/specs status=401"), std::string::npos) << log;
}

// A second workspace on the same machine takes the CPU calibration the first one measured
// (docs/architecture.md "Calibration"): no measurement, and it says where the figure came from.
TEST(ServeStartup, ASecondWorkspaceTakesTheMachinesCalibrationInsteadOfMeasuring) {
  TempDir machine;
  const std::string cache = (machine / "calibrations.json").string();
  std::string error;
  DaemonProcess first;
  ASSERT_TRUE(first.start({"--no-auth", "--calibration-cache", cache}, {}, &error)) << error;
  first.stop();
  ASSERT_NE(first.log().find("kwb serve: CPU calibrated in "), std::string::npos) << first.log();
  DaemonProcess second;
  ASSERT_TRUE(second.start({"--no-auth", "--calibration-cache", cache}, {}, &error)) << error;
  httplib::Client c(second.url());
  auto devices = c.Get("/v1/devices");
  ASSERT_TRUE(devices);
  ASSERT_EQ(devices->status, 200) << devices->body;
  EXPECT_NE(devices->body.find("from_calibration_cache"), std::string::npos) << devices->body;
  second.stop();
  const std::string log = second.log();
  EXPECT_EQ(log.find("for the roofline: one-thread copy bandwidth"), std::string::npos) << log;
  EXPECT_EQ(log.find("CPU calibrated in"), std::string::npos) << log;
  EXPECT_NE(log.find("CPU calibration taken from this machine's " + cache), std::string::npos) << log;
  // With the cache off, a fresh workspace measures again.
  DaemonProcess third;
  ASSERT_TRUE(third.start({"--no-auth", "--calibration-cache", "off"}, {}, &error)) << error;
  third.stop();
  EXPECT_NE(third.log().find("kwb serve: CPU calibrated in "), std::string::npos) << third.log();
}

TEST(ServeStartup, JsonLogFormatWritesOneObjectPerLineForStartRequestsAndVerdicts) {
  DaemonProcess d;
  std::string error;
  ASSERT_TRUE(d.start({"--no-auth", "--log-format", "json"}, {}, &error)) << error;
  httplib::Client c(d.url());
  c.set_read_timeout(120, 0);
  // A candidate that does not compile: a verdict in a second, without timing anything.
  const nlohmann::json submit = {{"op", "vector_add"}, {"source", "extern \"C\" void kwb_vector_add_f32( {"}};
  auto posted = c.Post("/v1/candidates", submit.dump(), "application/json");
  ASSERT_TRUE(posted);
  ASSERT_EQ(posted->status, 202) << posted->body;
  const std::string id = nlohmann::json::parse(posted->body)["id"];
  auto done = c.Get("/v1/candidates/" + id + "?wait=60");
  ASSERT_TRUE(done);
  ASSERT_EQ(nlohmann::json::parse(done->body)["state"], "done") << done->body;
  d.stop();
  std::map<std::string, std::vector<nlohmann::json>> events;
  for (const auto& line : lines_of(d.log())) {
    EXPECT_FALSE(line.starts_with("[20")) << "a plain spdlog line in JSON mode: " << line;
    EXPECT_FALSE(line.starts_with("kwb serve:")) << "a plain start-up line in JSON mode: " << line;
    if (!line.starts_with("{")) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << line;
    ASSERT_TRUE(j.contains("ts") && j.contains("level")) << line;
    events[j.value("event", "")].push_back(j);
  }
  ASSERT_FALSE(events["startup"].empty()) << d.log();
  bool listening = false;
  for (const auto& e : events["startup"]) listening = listening || e["step"] == "listening";
  EXPECT_TRUE(listening) << d.log();
  bool submitted = false, polled = false;
  for (const auto& e : events["http"]) {
    EXPECT_TRUE(e["request"].get<std::string>().starts_with("r-")) << e.dump();
    if (e["method"] == "POST" && e["path"] == "/v1/candidates")
      submitted = e["status"] == 202 && e["candidate"] == id;
    if (e["method"] == "GET" && e["path"] == "/v1/candidates/" + id) polled = e["candidate"] == id && e["status"] == 200;
  }
  EXPECT_TRUE(submitted) << d.log();
  EXPECT_TRUE(polled) << d.log();
  ASSERT_EQ(events["verdict"].size(), 1u) << d.log();
  const auto& v = events["verdict"][0];
  EXPECT_EQ(v["candidate"], id);
  EXPECT_EQ(v["status"], "compile_error");
  EXPECT_EQ(v["op"], "vector_add");
  EXPECT_EQ(v["level"], "info");
  EXPECT_FALSE(v["reason"].get<std::string>().empty());
}

TEST(ServeStartup, AnUnknownLogFormatIsAUsageError) {
  TempDir dir;
  auto r = run_command((bin_dir() / "kwb").string() + " serve --port 0 --log-format yaml --workspace " +
                       shell_quote((dir / "ws").string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--log-format 'yaml' is not one of text, json"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir / "ws"));
}

}  // namespace
