// The daemon's auth over real HTTP: 401 without or with an unknown token, tokens made by the
// admin over the API, 403 for an agent on an admin route, 429 past the queue quota (an
// Idempotency-Key does not get around it) and past the request rate, with Retry-After.
#include <httplib.h>

#include <gtest/gtest.h>

#include "daemon_support.hpp"

namespace {

using namespace kwb::test;

std::string vector_add_source(const std::string& tag) {
  return "#include <cstdint>\n// " + tag + "\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, "
         "float* c, int64_t n) { for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i]; }\n";
}

std::string submit_body(const std::string& source) {
  return nlohmann::json{{"op", "vector_add"}, {"source", source}}.dump();
}

nlohmann::json body_of(const httplib::Result& r) {
  return r ? nlohmann::json::parse(r->body, nullptr, false) : nlohmann::json();
}

TEST(DaemonAuth, TokensRolesAndQuotas) {
  DaemonProcess d;
  d.start({"--time-budget-ms", "20", "--queue-quota", "1"});
  ASSERT_TRUE(d.running()) << d.log();
  std::string admin = read_text(d.workspace() / "admin.token");
  admin.erase(admin.find_last_not_of("\n") + 1);
  ASSERT_EQ(admin.rfind("kwb_", 0), 0u);
  httplib::Client c("127.0.0.1", d.port());
  c.set_read_timeout(60, 0);
  // 401 without a token, and with an unknown one.
  auto none = c.Get("/v1/specs");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(none->get_header_value("WWW-Authenticate"), "Bearer");
  httplib::Headers wrong = {{"Authorization", "Bearer kwb_not_a_token"}};
  EXPECT_EQ(c.Get("/v1/specs", wrong)->status, 401);
  // The admin creates an agent token over the API.
  httplib::Headers as_admin = {{"Authorization", "Bearer " + admin}};
  auto created = c.Post("/v1/tokens", as_admin, R"({"name":"agent-1","role":"agent"})", "application/json");
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 201) << created->body;
  std::string agent = body_of(created)["token"];
  httplib::Headers as_agent = {{"Authorization", "Bearer " + agent}};
  EXPECT_EQ(c.Get("/v1/specs", as_agent)->status, 200);
  // 403: an agent calling an admin route.
  auto forbidden = c.Get("/v1/tokens", as_agent);
  ASSERT_TRUE(forbidden);
  EXPECT_EQ(forbidden->status, 403);
  EXPECT_NE(body_of(forbidden)["error"]["message"].get<std::string>().find("admin"), std::string::npos);
  // 429 past the queue quota (1): the first candidate is still compiling when the second comes.
  auto first = c.Post("/v1/candidates", as_agent, submit_body(vector_add_source("quota-1")), "application/json");
  auto second = c.Post("/v1/candidates", as_agent, submit_body(vector_add_source("quota-2")), "application/json");
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->status, 202);
  EXPECT_EQ(second->status, 429) << second->body;
  EXPECT_EQ(body_of(second)["error"]["type"], "queue_quota");
  EXPECT_FALSE(second->get_header_value("Retry-After").empty());
  // A fresh Idempotency-Key does not get around the quota; the first candidate's key replays.
  httplib::Headers keyed = as_agent;
  keyed.emplace("Idempotency-Key", "quota-fresh-key");
  auto third = c.Post("/v1/candidates", keyed, submit_body(vector_add_source("quota-3")), "application/json");
  ASSERT_TRUE(third);
  EXPECT_EQ(third->status, 429) << third->body;
}

TEST(DaemonAuth, RateLimitAnswers429WithRetryAfter) {
  DaemonProcess d;
  d.start({"--no-auth", "--rate", "2"});
  ASSERT_TRUE(d.running()) << d.log();
  httplib::Client c("127.0.0.1", d.port());
  int limited = 0;
  std::string retry;
  for (int i = 0; i < 20; ++i) {
    auto r = c.Get("/v1/specs");
    ASSERT_TRUE(r);
    if (r->status == 429) {
      ++limited;
      retry = r->get_header_value("Retry-After");
    }
  }
  EXPECT_GT(limited, 0);
  EXPECT_FALSE(retry.empty());
}

}  // namespace
