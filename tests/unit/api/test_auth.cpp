// Authentication when the token cannot be looked up (api/auth.cpp): a database locked past its
// bounded wait answers 503 busy with Retry-After, as every route answers a locked database
// (api/http_util.cpp send_failure), never 500 with an exception's text; and the failed lookup is
// not counted as a failed login of the client's address.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "api/access.hpp"
#include "api/auth.hpp"
#include "api/context.hpp"
#include "api/http_util.hpp"
#include "store/token_repository.hpp"
#include "temp_dir.hpp"

namespace kwb::api {
namespace {

// Another connection (as another process would) holds the database's exclusive lock.
struct LockHolder {
  sqlite3* db = nullptr;
  explicit LockHolder(const std::filesystem::path& file) {
    sqlite3_open(file.c_str(), &db);
    sqlite3_exec(db, "BEGIN EXCLUSIVE; INSERT INTO devices (id, kind, name, copy_bytes_per_s) VALUES ('x', 'cpu', 'x', 1);",
                 nullptr, nullptr, nullptr);
  }
  ~LockHolder() {
    sqlite3_exec(db, "ROLLBACK;", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
};

// One address, one failed login allowed: a busy lookup counted as a failed login would refuse
// the next request of this address (429).
constexpr LoginLimits k_one_failure{0.001, 1};

struct Workspace {
  test::TempDir dir;
  std::optional<store::Database> db;
  std::string token;

  Workspace() {
    auto opened = store::Database::open(dir / "kwb.db");
    if (!opened) throw std::runtime_error(opened.error().what());
    db.emplace(std::move(*opened));
    auto created = store::TokenRepository(*db).create("agent-1", "agent");
    if (!created) throw std::runtime_error(created.error().what());
    token = *created;
    // The workspace's WAL mode lets readers past a writer's lock; in rollback-journal mode the
    // exclusive lock blocks reads too (a lock that blocks the token lookup, as another process in
    // exclusive locking mode would hold). Switched while this is the only connection.
    if (auto r = db->exec("PRAGMA journal_mode=DELETE;"); !r) throw std::runtime_error(r.error().what());
  }
};

TEST(Authentication, ALockedDatabaseAnswers503BusyNot500AndIsNotAFailedLogin) {
  Workspace ws;
  Authenticator auth(*ws.db, true, k_one_failure);
  const std::string header = "Bearer " + ws.token;
  const std::string address = "10.0.0.7";
  ASSERT_TRUE(auth.check(header, address).who) << "the token works before the lock";

  store::ObjectStore objects(ws.dir / "objects");
  spec::Catalog catalog;
  exec::EventHub hub;
  exec::Ledger ledger(*ws.db, hub);
  exec::Pipeline pipeline(*ws.db, objects, exec::EvaluationFactory{}, ledger, exec::PipelineConfig{});
  exec::Intake intake(*ws.db, objects, catalog, ledger, {}, {});
  RateLimiter limiter(50, 100);
  ApiContext ctx{*ws.db, objects, catalog, pipeline, intake, hub, auth, limiter};
  {
    LockHolder holder(ws.dir / "kwb.db");

    // A route's guard.
    httplib::Request req;
    req.headers.emplace("Authorization", header);
    req.remote_addr = address;
    httplib::Response res;
    EXPECT_FALSE(guard(req, res, ctx, Role::agent));
    EXPECT_EQ(res.status, 503) << res.body;
    auto body = nlohmann::json::parse(res.body);
    EXPECT_EQ(body["error"]["type"], "busy") << res.body;
    EXPECT_NE(body["error"]["message"].get<std::string>().find("retry shortly"), std::string::npos) << res.body;
    EXPECT_EQ(res.get_header_value("Retry-After"), "1");

    // The connection gate's check before it reads a request body.
    RequestHead head;
    head.method = "POST";
    head.path = "/v1/candidates";
    head.authorization = header;
    auto refused = preflight_auth(auth, head, address);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 503) << refused->message;
    EXPECT_EQ(refused->type, "busy");
    ASSERT_EQ(refused->headers.size(), 1u);
    EXPECT_EQ(refused->headers[0].first, "Retry-After");
  }
  // Lock released: the same address is let through (the two busy lookups were not failed logins).
  auto after = auth.check(header, address);
  EXPECT_EQ(after.retry_after_s, 0);
  EXPECT_FALSE(after.failure);
  ASSERT_TRUE(after.who);
  EXPECT_EQ(after.who->name, "agent-1");
}

TEST(Authentication, AFullDiskAnswers507AsEveryRouteDoes) {
  util::Error full{"/ws/kwb.db", "token lookup: database or disk is full", util::ErrorKind::storage_full};
  Refusal r = refusal_of(full);
  EXPECT_EQ(r.status, 507);
  EXPECT_EQ(r.type, "insufficient_storage");
  httplib::Response res;
  send_failure(res, full);
  EXPECT_EQ(res.status, 507);
  EXPECT_EQ(nlohmann::json::parse(res.body)["error"]["type"], "insufficient_storage");
  EXPECT_EQ(res.get_header_value("Retry-After"), "30");
}

}  // namespace
}  // namespace kwb::api
