// The review pages' files (workbench/web): embedded, each reference between them resolves, no
// inline script, and every file is served with the Content-Security-Policy; data stays behind
// the API's own routes (docs/web.md).
#include <gtest/gtest.h>
#include <httplib.h>

#include <regex>
#include <set>
#include <thread>

#include "web/assets.hpp"
#include "web/pages.hpp"

namespace {

using kwb::web::assets;
using kwb::web::find_asset;

TEST(WebAssets, EveryReferencedFileIsEmbedded) {
  ASSERT_NE(find_asset("index.html"), nullptr);
  std::set<std::string> missing;
  const std::regex import_re(R"(from '\./([a-z0-9_]+\.js)')"), ui_re(R"(/ui/([a-z0-9_]+\.[a-z]+))");
  for (const auto& a : assets()) {
    const std::string body(a.body);
    for (const auto& re : {import_re, ui_re})
      for (std::sregex_iterator it(body.begin(), body.end(), re), end; it != end; ++it)
        if (!find_asset((*it)[1].str())) missing.insert(std::string(a.name) + " -> " + (*it)[1].str());
  }
  EXPECT_TRUE(missing.empty()) << [&] {
    std::string s;
    for (const auto& m : missing) s += m + "\n";
    return s;
  }();
}

TEST(WebAssets, NoInlineScriptOrStyleAndNoInnerHtml) {
  const std::string index(find_asset("index.html")->body);
  EXPECT_EQ(index.find("<script>"), std::string::npos);
  EXPECT_EQ(index.find("style=\""), std::string::npos);
  EXPECT_FALSE(std::regex_search(index, std::regex(R"(\son[a-z]+=)"))) << "an inline event handler attribute";
  for (const auto& a : assets()) {
    if (!std::string_view(a.name).ends_with(".js")) continue;
    EXPECT_EQ(a.body.find("innerHTML"), std::string_view::npos) << a.name;
    EXPECT_EQ(a.body.find("eval("), std::string_view::npos) << a.name;
    EXPECT_EQ(a.content_type, "text/javascript; charset=utf-8") << a.name;
  }
}

TEST(WebPages, ServedWithTheContentSecurityPolicy) {
  httplib::Server svr;
  kwb::web::add_pages(svr);
  int port = svr.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread t([&] { svr.listen_after_bind(); });
  struct Stop {  // on every way out of the test, failed assertions included
    httplib::Server& svr;
    std::thread& t;
    ~Stop() {
      while (!svr.is_running()) std::this_thread::yield();
      svr.stop();
      t.join();
    }
  } stop{svr, t};
  // The socket listens since bind_to_any_port: a request made before the accept loop runs waits in
  // the backlog, so no wait is needed here.
  httplib::Client c("127.0.0.1", port);
  for (const std::string path : {"/", "/ui/app.js", "/ui/style.css"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path;
    EXPECT_EQ(r->get_header_value("Content-Security-Policy"), kwb::web::k_content_security_policy) << path;
    EXPECT_EQ(r->get_header_value("X-Content-Type-Options"), "nosniff") << path;
  }
  EXPECT_NE(std::string(kwb::web::k_content_security_policy).find("default-src 'self'"), std::string::npos);
  EXPECT_EQ(std::string(kwb::web::k_content_security_policy).find("unsafe-inline"), std::string::npos);
  auto missing = c.Get("/ui/nope.js");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_NE(missing->body.find("\"not_found\""), std::string::npos) << missing->body;
  auto traversal = c.Get("/ui/../kwb.db");
  ASSERT_TRUE(traversal);
  EXPECT_EQ(traversal->status, 404);
}

}  // namespace
