// Who may do what, and bodies checked field by field (issue 15, defects 4, 5, 9 and 10): cancel
// is for the candidate's owner, a reviewer or an admin; revocation (HTTP and CLI) holds from the
// next request; failed logins are throttled per address; token names are bounded; every body
// field is type-checked; an Idempotency-Key reused with another body is 422.
#include <httplib.h>

#include <gtest/gtest.h>

#include "daemon_support.hpp"
#include "raw_http.hpp"

namespace {

using namespace kwb::test;
using namespace std::chrono_literals;

nlohmann::json body_of(const httplib::Result& r) { return r ? nlohmann::json::parse(r->body, nullptr, false) : nlohmann::json(); }

class ApiAccess : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_daemon = new DaemonProcess();
    s_daemon->start({"--time-budget-ms", "20", "--rate", "5000"});
    s_admin = read_text(s_daemon->workspace() / "admin.token");
    s_admin.erase(s_admin.find_last_not_of('\n') + 1);
  }
  static void TearDownTestSuite() { delete s_daemon; }
  static httplib::Client client() {
    httplib::Client c("127.0.0.1", s_daemon->port());
    c.set_read_timeout(60, 0);
    return c;
  }
  static httplib::Headers as(const std::string& token) { return {{"Authorization", "Bearer " + token}}; }
  // A new token over the API: {token, id}.
  static std::pair<std::string, int64_t> make_token(const std::string& name, const std::string& role) {
    auto c = client();
    auto r = c.Post("/v1/tokens", as(s_admin), nlohmann::json{{"name", name}, {"role", role}}.dump(), "application/json");
    if (!r || r->status != 201) return {"", 0};
    std::string token = body_of(r)["token"];
    auto list = body_of(c.Get("/v1/tokens", as(s_admin)));
    int64_t id = 0;
    for (const auto& t : list["tokens"])
      if (t["name"] == name) id = t["id"];
    return {token, id};
  }
  static std::string submit(const std::string& token, const std::string& tag) {
    auto c = client();
    std::string source = "#include <cstdint>\n// " + tag + "\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, "
                         "float* c, int64_t n) { for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i]; }\n";
    auto r = c.Post("/v1/candidates", as(token), nlohmann::json{{"op", "vector_add"}, {"source", source}}.dump(), "application/json");
    return r && r->status == 202 ? body_of(r)["id"].get<std::string>() : "";
  }
  static DaemonProcess* s_daemon;
  static std::string s_admin;
};
DaemonProcess* ApiAccess::s_daemon = nullptr;
std::string ApiAccess::s_admin;

// Defect 4.
TEST_F(ApiAccess, OnlyTheOwnerAReviewerOrAnAdminMayCancel) {
  ASSERT_TRUE(s_daemon->running()) << s_daemon->log();
  auto [alice, alice_id] = make_token("alice", "agent");
  auto [bob, bob_id] = make_token("bob", "agent");
  auto [rita, rita_id] = make_token("rita", "reviewer");
  ASSERT_FALSE(alice.empty() || bob.empty() || rita.empty());
  auto c = client();
  std::string a1 = submit(alice, "alice-1"), a2 = submit(alice, "alice-2");
  ASSERT_FALSE(a1.empty() || a2.empty());
  auto denied = c.Post("/v1/candidates/" + a1 + "/cancel", as(bob), "", "application/json");
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->status, 403) << denied->body;
  EXPECT_EQ(body_of(denied)["error"]["type"], "forbidden");
  EXPECT_NE(body_of(denied)["error"]["message"].get<std::string>().find("only its owner, a reviewer or an admin"),
            std::string::npos);
  EXPECT_FALSE(body_of(c.Get("/v1/candidates/" + a1, as(alice)))["cancel_requested"].get<bool>());
  auto own = c.Post("/v1/candidates/" + a1 + "/cancel", as(alice), "", "application/json");
  ASSERT_TRUE(own);
  EXPECT_EQ(own->status, 200) << own->body;
  auto reviewer = c.Post("/v1/candidates/" + a2 + "/cancel", as(rita), "", "application/json");
  ASSERT_TRUE(reviewer);
  EXPECT_EQ(reviewer->status, 200) << reviewer->body;
  // No Content-Length at all is an empty body (httplib alone answered a bare 400).
  auto bare = exchange("127.0.0.1", s_daemon->port(),
                       "POST /v1/candidates/" + a2 + "/cancel HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer " + rita + "\r\n\r\n");
  EXPECT_EQ(bare.status, 200) << bare.head << bare.body;
  // A body with fields on a route that takes none.
  auto junk = c.Post("/v1/candidates/" + a1 + "/cancel", as(alice), R"({"force": true})", "application/json");
  ASSERT_TRUE(junk);
  EXPECT_EQ(junk->status, 400) << junk->body;
}

// Defect 5: revocation over HTTP and by the CLI, with the daemon running.
TEST_F(ApiAccess, RevokedTokensStopWorkingAtOnce) {
  ASSERT_TRUE(s_daemon->running()) << s_daemon->log();
  auto c = client();
  auto [t1, id1] = make_token("to-revoke-http", "agent");
  auto [t2, id2] = make_token("to-revoke-cli", "agent");
  ASSERT_GT(id1, 0);
  ASSERT_GT(id2, 0);
  EXPECT_EQ(c.Get("/v1/specs", as(t1))->status, 200);
  EXPECT_EQ(c.Get("/v1/specs", as(t2))->status, 200);
  // An agent cannot revoke.
  auto forbidden = c.Delete("/v1/tokens/" + std::to_string(id2), as(t1));
  ASSERT_TRUE(forbidden);
  EXPECT_EQ(forbidden->status, 403);
  auto del = c.Delete("/v1/tokens/" + std::to_string(id1), as(s_admin));
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 200) << del->body;
  EXPECT_TRUE(body_of(del)["revoked"].get<bool>());
  auto after = c.Get("/v1/specs", as(t1));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 401) << after->body;
  EXPECT_EQ(c.Delete("/v1/tokens/999999", as(s_admin))->status, 404);
  // The CLI writes the database; the daemon sees it at the next request.
  auto cli = run_command((bin_dir() / "kwb").string() + " token revoke " + std::to_string(id2) + " --workspace " +
                         shell_quote(s_daemon->workspace().string()));
  EXPECT_EQ(cli.exit_code, 0) << cli.out;
  EXPECT_NE(cli.out.find("revoked token " + std::to_string(id2)), std::string::npos) << cli.out;
  EXPECT_EQ(c.Get("/v1/specs", as(t2))->status, 401);
  auto listed = body_of(c.Get("/v1/tokens", as(s_admin)));
  for (const auto& t : listed["tokens"]) {
    if (t["id"] == id1 || t["id"] == id2) {
      EXPECT_TRUE(t["revoked"].get<bool>()) << t.dump();
    }
  }
  // The last live admin token cannot be revoked over HTTP (that would lock everyone out).
  auto last = c.Delete("/v1/tokens/1", as(s_admin));
  ASSERT_TRUE(last);
  EXPECT_EQ(last->status, 409) << last->body;
  EXPECT_EQ(body_of(last)["error"]["type"], "last_admin");
}

TEST_F(ApiAccess, TokenNamesAndFieldsAreChecked) {
  auto c = client();
  struct Case {
    nlohmann::json body;
    int status;
    std::string mention;
  };
  std::vector<Case> cases = {
      {{{"name", std::string(65, 'n')}, {"role", "agent"}}, 400, "name: longer than 64"},
      {{{"name", ""}, {"role", "agent"}}, 400, "name: must not be empty"},
      {{{"name", "a\nb"}, {"role", "agent"}}, 400, "control characters"},
      {{{"name", 5}, {"role", "agent"}}, 400, "name: expected string, got number"},
      {{{"name", "x"}, {"role", 1}}, 400, "role: expected string"},
      {{{"name", "x"}}, 400, "role: required"},
      {{{"name", "x"}, {"role", "agent"}, {"admin", true}}, 400, "admin: unknown field"},
      {{{"name", "x"}, {"role", "god"}}, 422, "unknown role"},
  };
  for (const auto& k : cases) {
    auto r = c.Post("/v1/tokens", as(s_admin), k.body.dump(), "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, k.status) << k.body.dump() << " -> " << r->body;
    EXPECT_NE(body_of(r)["error"]["message"].get<std::string>().find(k.mention), std::string::npos) << r->body;
  }
  auto cli = run_command((bin_dir() / "kwb").string() + " token create --name " + std::string(65, 'n') +
                         " --workspace " + shell_quote(s_daemon->workspace().string()) + " 2>&1");
  EXPECT_EQ(cli.exit_code, 2) << cli.out;
  EXPECT_NE(cli.out.find("longer than 64"), std::string::npos) << cli.out;
}

// Failed logins are throttled per address (burst 10): that address is refused without its token
// being looked at, other addresses are not.
TEST_F(ApiAccess, FailedLoginsAreRateLimitedPerAddress) {
  ASSERT_TRUE(s_daemon->running()) << s_daemon->log();
  int port = s_daemon->port();
  auto get = [&](const std::string& from, const std::string& token) {
    return exchange(from, port, "GET /v1/specs HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer " + token + "\r\n\r\n");
  };
  int unauthorized = 0;
  RawResponse r;
  for (int i = 0; i < 30 && r.status != 429; ++i) {
    r = get("127.0.0.5", "kwb_wrong_" + std::to_string(i));
    unauthorized += r.status == 401;
  }
  EXPECT_EQ(unauthorized, 10);
  EXPECT_EQ(r.status, 429) << r.body;
  EXPECT_EQ(r.json()["error"]["type"], "too_many_failed_logins");
  EXPECT_FALSE(r.header("Retry-After").empty());
  EXPECT_EQ(get("127.0.0.5", s_admin).status, 429);  // even a good token, from there, for now
  EXPECT_EQ(get("127.0.0.6", s_admin).status, 200);
  // Bodies from a throttled address are not read either.
  auto post = exchange("127.0.0.5", port,
                       "POST /v1/candidates HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer kwb_x\r\nContent-Length: 2\r\n\r\n{}");
  EXPECT_EQ(post.status, 429) << post.body;
}

// Defect 9: every field of the submit body is checked for its type, launch and tune included.
TEST_F(ApiAccess, LaunchAndTuneAreTypeChecked) {
  auto c = client();
  struct Case {
    nlohmann::json body;
    std::string mention;
  };
  std::string src = "extern \"C\" __global__ void k(float* x) {}";
  std::vector<Case> cases = {
      {{{"op", "vector_add"}, {"backend", "cuda"}, {"source", src}, {"launch", 12345}, {"tune", "x"}}, "launch: expected"},
      {{{"op", "vector_add"}, {"backend", "cuda"}, {"source", src}, {"tune", "x"}}, "tune: expected an object"},
      {{{"op", "vector_add"}, {"backend", "cuda"}, {"source", src}, {"launch", {1}}}, "launch[0]: expected a string"},
      {{{"op", "vector_add"}, {"backend", "cuda"}, {"source", src}, {"launch", nullptr}}, "launch: expected"},
      {{{"op", "vector_add"}, {"backend", "cuda"}, {"source", src}, {"launch", "k grid=(1) block=(1) args=(a)"}, {"tune", {{"B", {1.5}}}}},
       "tune.B"},
      {{{"op", "vector_add"}, {"source", "int x;"}, {"launch", "k grid=(1) block=(1) args=(a)"}}, "only the cuda backend"},
      {{{"op", "vector_add"}, {"backend", "cuda-launcher"}, {"source", src}, {"tune", {{"B", {1}}}}}, "only the cuda backend"},
      {{{"op", "vector_add"}, {"source", "int x;"}, {"note", 7}}, "note: expected string, got number"},
      {{{"op", "vector_add"}, {"source", "int x;"}, {"bench", {1}}}, "bench[0]: expected string"},
  };
  for (const auto& k : cases) {
    auto r = c.Post("/v1/candidates", as(s_admin), k.body.dump(), "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << k.body.dump() << " -> " << r->body;
    EXPECT_EQ(body_of(r)["error"]["type"], "invalid_field") << r->body;
    EXPECT_NE(body_of(r)["error"]["message"].get<std::string>().find(k.mention), std::string::npos) << r->body;
  }
  // A plan given as JSON becomes comment lines after the source (the stored source shows it).
  auto ok = c.Post("/v1/candidates", as(s_admin),
                   nlohmann::json{{"op", "vector_add"}, {"backend", "cuda"}, {"source", src},
                                  {"launch", "k grid=(n) block=(1) args=(a)"}, {"tune", {{"B", {1, 2}}}}}
                       .dump(),
                   "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 202) << ok->body;
  auto rec = body_of(c.Get("/v1/candidates/" + body_of(ok)["id"].get<std::string>(), as(s_admin)));
  auto stored = read_text(s_daemon->workspace() / "objects" / rec["source_sha256"].get<std::string>().substr(0, 2) /
                          rec["source_sha256"].get<std::string>().substr(2));
  EXPECT_NE(stored.find("// kwb:launch k grid=(n) block=(1) args=(a)\n// kwb:tune B=1,2\n"), std::string::npos) << stored;
}

// Defect 10.
TEST_F(ApiAccess, AnIdempotencyKeyReusedWithAnotherBodyIs422) {
  auto c = client();
  auto h = as(s_admin);
  h.emplace("Idempotency-Key", "key-conflict-1");
  nlohmann::json first = {{"op", "vector_add"}, {"source", "int first;"}, {"note", "n"}};
  auto a = c.Post("/v1/candidates", h, first.dump(), "application/json");
  ASSERT_TRUE(a);
  ASSERT_EQ(a->status, 202) << a->body;
  std::string id = body_of(a)["id"];
  // The same body, written in another key order and spacing, is a replay.
  auto same = c.Post("/v1/candidates", h, R"({ "note":"n",  "source":"int first;", "op":"vector_add" })", "application/json");
  ASSERT_TRUE(same);
  EXPECT_EQ(same->status, 200) << same->body;
  EXPECT_EQ(body_of(same)["id"], id);
  auto other = c.Post("/v1/candidates", h, nlohmann::json{{"op", "vector_add"}, {"source", "int second;"}}.dump(),
                      "application/json");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 422) << other->body;
  EXPECT_EQ(body_of(other)["error"]["type"], "idempotency_conflict");
  EXPECT_NE(body_of(other)["error"]["message"].get<std::string>().find(id), std::string::npos) << other->body;
  // Keys are per token: another token may use the same key for its own body.
  auto [agent, agent_id] = make_token("idem-agent", "agent");
  auto h2 = as(agent);
  h2.emplace("Idempotency-Key", "key-conflict-1");
  auto theirs = c.Post("/v1/candidates", h2, nlohmann::json{{"op", "vector_add"}, {"source", "int third;"}}.dump(),
                       "application/json");
  ASSERT_TRUE(theirs);
  EXPECT_EQ(theirs->status, 202) << theirs->body;
}

}  // namespace
