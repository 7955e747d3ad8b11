// The route table: every route the server registers is in /openapi.json, and every documented
// route is registered (method and path template, both ways).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "api/auth.hpp"
#include "api/openapi.hpp"
#include "api/router.hpp"
#include "api/server.hpp"

namespace {

namespace fs = std::filesystem;
using namespace kwb;

TEST(Routes, EveryRegisteredRouteIsDocumentedAndViceVersa) {
  char tmpl[] = "/tmp/kwb-routes-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  fs::path dir = tmpl;
  {
    auto db = store::Database::open(dir / "kwb.db");
    ASSERT_TRUE(db.has_value()) << db.error().what();
    store::ObjectStore objects(dir / "objects");
    spec::Catalog catalog;
    exec::EventHub hub;
    exec::Ledger ledger(*db, hub);
    exec::Pipeline pipeline(*db, objects, exec::EvaluationFactory{}, ledger, exec::PipelineConfig{});
    exec::Intake intake(*db, objects, catalog, ledger, {}, {});
    api::Authenticator auth(*db, true);
    api::RateLimiter limiter(50, 100);
    api::ApiContext ctx{*db, objects, catalog, pipeline, intake, hub, auth, limiter};
    api::Server server(ctx);

    std::set<api::RouteKey> registered(server.routes().begin(), server.routes().end());
    EXPECT_EQ(registered.size(), server.routes().size()) << "a route is registered twice";
    std::set<api::RouteKey> documented;
    auto doc = api::openapi_document("test");
    for (const auto& [path, methods] : doc["paths"].items())
      for (const auto& [method, op] : methods.items()) documented.insert({method, path});
    for (const auto& r : registered)
      EXPECT_TRUE(documented.count(r)) << r.method << " " << r.path << " is served but not in /openapi.json";
    for (const auto& d : documented)
      EXPECT_TRUE(registered.count(d)) << d.method << " " << d.path << " is documented but not served";
    EXPECT_GE(registered.size(), 20u);
  }
  fs::remove_all(dir);
}

TEST(Routes, PathTemplatesBecomeAnchoredParameterPatterns) {
  EXPECT_EQ(api::path_pattern("/v1/candidates/{id}/events"), "/v1/candidates/(c-[0-9a-f]{16})/events");
  EXPECT_EQ(api::path_pattern("/v1/library/{op}/retime"), "/v1/library/([a-z0-9_]{1,64})/retime");
  EXPECT_EQ(api::path_pattern("/v1/tokens/{token_id}"), "/v1/tokens/([0-9]{1,18})");
  EXPECT_THROW(api::path_pattern("/v1/x/{nope}"), std::logic_error);
}

TEST(Unauthorized, TheMessageSaysWhatIsWrongWithTheHeader) {
  EXPECT_NE(api::unauthorized_message("", false).find("missing bearer token: send 'Authorization: Bearer <token>'"),
            std::string::npos);
  EXPECT_NE(api::unauthorized_message("", true).find("a request with a body needs 'Authorization: Bearer <token>'"),
            std::string::npos);
  std::string raw = api::unauthorized_message("kwb_0123456789abcdef", false);
  EXPECT_NE(raw.find("write 'Authorization: Bearer kwb_...'"), std::string::npos) << raw;
  EXPECT_NE(api::unauthorized_message("Basic dXNlcjpwdw==", false).find("unsupported authorization scheme 'Basic'"),
            std::string::npos);
  EXPECT_EQ(api::unauthorized_message("Bearer kwb_nope", false), "unknown or revoked token");
  EXPECT_EQ(api::unauthorized_message("bearer kwb_nope", false), "unknown or revoked token");  // scheme: any case
  // A daemon names its workspace: a token made on another one is the likeliest cause.
  EXPECT_EQ(api::unauthorized_message("Bearer kwb_nope", false, "/srv/ws"),
            "token unknown to this daemon's workspace /srv/ws (or revoked): a token belongs to the workspace whose "
            "`kwb token create` made it; create one for this daemon with `kwb token create --workspace /srv/ws`");
}

}  // namespace
