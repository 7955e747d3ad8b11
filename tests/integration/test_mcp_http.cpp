// POST /mcp of a real daemon, beyond what the conformance suite and the TypeScript client test
// (tests/mcp): auth like every route, GET/DELETE, and that MCP calls which wait on inner REST
// requests cannot exhaust the workers — their inner requests run on the calling thread.
#include <gtest/gtest.h>

#include <algorithm>

#include <httplib.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "daemon_support.hpp"

namespace {

using namespace kwb::test;
using nlohmann::json;

json modern(const std::string& method, json params = json::object()) {
  params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}, {"io.modelcontextprotocol/clientCapabilities", json::object()}};
  return {{"jsonrpc", "2.0"}, {"id", 7}, {"method", method}, {"params", params}};
}

httplib::Headers modern_headers(const json& msg, const std::string& token = "") {
  httplib::Headers h = {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", msg["method"]}, {"Accept", "application/json, text/event-stream"}};
  if (msg["params"].contains("name")) h.emplace("Mcp-Name", msg["params"]["name"]);
  if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
  return h;
}

TEST(McpHttp, AuthLikeEveryRouteAndNoGetStream) {
  DaemonProcess d;
  std::string error;
  ASSERT_TRUE(d.start({}, {}, &error)) << error;
  httplib::Client c("127.0.0.1", d.port());
  json msg = modern("tools/list");
  auto anonymous = c.Post("/mcp", modern_headers(msg), msg.dump(), "application/json");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401) << anonymous->body;
  EXPECT_EQ(anonymous->get_header_value("WWW-Authenticate"), "Bearer");
  auto get = c.Get("/mcp");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 401);  // authenticated before anything else, as every route

  auto token = run_command((bin_dir() / "kwb").string() + " token create --role agent --workspace " + shell_quote(d.workspace().string()));
  ASSERT_EQ(token.exit_code, 0) << token.out;
  std::string agent = token.out.substr(0, token.out.find('\n'));
  auto listed = c.Post("/mcp", modern_headers(msg, agent), msg.dump(), "application/json");
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->status, 200) << listed->body;
  EXPECT_EQ(json::parse(listed->body)["result"]["tools"].size(), 15u);  // library_report is the last
  auto get_authed = c.Get("/mcp", {{"Authorization", "Bearer " + agent}});
  ASSERT_TRUE(get_authed);
  EXPECT_EQ(get_authed->status, 405);
  EXPECT_EQ(get_authed->get_header_value("Allow"), "POST, DELETE");
  auto evil = c.Post("/mcp", [&] { auto h = modern_headers(msg, agent); h.emplace("Origin", "http://evil.example.com"); return h; }(),
                     msg.dump(), "application/json");
  ASSERT_TRUE(evil);
  EXPECT_EQ(evil->status, 403) << evil->body;
}

// 24 MCP calls at once, each waiting 3 s on an inner long-poll (get_verdict of a queued
// candidate) and each making inner REST requests, against one request worker: all answer, and an
// ordinary request is served meanwhile.
TEST(McpHttp, ConcurrentCallsCannotExhaustTheWorkers) {
  DaemonProcess d;
  std::string error;
  ASSERT_TRUE(d.start({"--no-auth", "--request-threads", "1", "--compile-workers", "1"}, {}, &error)) << error;
  httplib::Client c("127.0.0.1", d.port());
  // get_verdict waits on the daemon's first candidate while it is being evaluated (a finished one
  // would answer at once).
  const std::string source =
      "#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) "
      "{ for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i]; }\n";
  json args = {{"op", "vector_add"}, {"source", source}};
  json submit = modern("tools/call", {{"name", "submit_kernel"}, {"arguments", args}});
  auto s = c.Post("/mcp", modern_headers(submit), submit.dump(), "application/json");
  ASSERT_TRUE(s);
  ASSERT_EQ(s->status, 200) << s->body;
  std::string id = json::parse(s->body)["result"]["structuredContent"]["id"];
  std::atomic<int> answered{0}, ok{0};
  std::vector<std::thread> calls;
  for (int i = 0; i < 24; ++i)
    calls.emplace_back([&, i] {
      httplib::Client ci("127.0.0.1", d.port());
      ci.set_read_timeout(60, 0);
      json m = i % 2 ? modern("tools/call", {{"name", "get_verdict"}, {"arguments", {{"id", id}, {"wait_s", 3}}}})
                     : modern("tools/call", {{"name", "list_ops"}, {"arguments", json::object()}});
      auto r = ci.Post("/mcp", modern_headers(m), m.dump(), "application/json");
      ++answered;
      if (r && r->status == 200 && json::parse(r->body)["result"]["isError"] == false) ++ok;
    });
  auto health = c.Get("/v1/health");
  for (auto& t : calls) t.join();
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(answered.load(), 24);
  EXPECT_EQ(ok.load(), 24);
}

TEST(McpStdio, EmbeddedDaemonOnTheWorkspace) {
  char tmpl[] = "/tmp/kwb-mcp-embedded-XXXXXX";
  ASSERT_TRUE(::mkdtemp(tmpl));
  std::string in = json({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"},
                         {"params", {{"name", "list_ops"}, {"arguments", json::object()},
                                     {"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                                                {"io.modelcontextprotocol/clientCapabilities", json::object()}}}}}})
                       .dump();
  // stdin ends after one request: kwb mcp answers it, then stops its daemon and exits 0.
  auto r = run_command("printf '%s\\n' " + shell_quote(in) + " | " + (bin_dir() / "kwb").string() + " mcp --workspace " + shell_quote(tmpl) + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto line = json::parse(r.out.substr(0, r.out.find('\n')), nullptr, false);
  ASSERT_TRUE(line.is_object()) << r.out;  // stdout carries MCP messages only
  EXPECT_EQ(line["id"], 1);
  EXPECT_NE(line["result"]["content"][0]["text"].get<std::string>().find("vector_add"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << r.out;
  // Nothing it started outlives it (an analyzer worker still warming up wrote the workspace's
  // analysis cache after kwb mcp had exited).
  for (const auto& proc : std::filesystem::directory_iterator("/proc")) {
    std::string cmdline = read_text(proc.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    EXPECT_EQ(cmdline.find(tmpl), std::string::npos) << "still running: " << proc.path().filename() << " " << cmdline;
  }
  std::filesystem::remove_all(tmpl);
}

}  // namespace
