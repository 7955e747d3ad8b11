#include "web/pages.hpp"

#include <string>

#include "api/http_util.hpp"
#include "web/assets.hpp"

namespace kwb::web {

const char* const k_content_security_policy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

namespace {

void send_asset(httplib::Response& res, const Asset& a) {
  res.status = 200;
  res.set_header("Content-Security-Policy", k_content_security_policy);
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("X-Frame-Options", "DENY");
  // The files change with the binary only: revalidated on each load, never stale after an upgrade.
  res.set_header("Cache-Control", "no-cache");
  res.set_content(std::string(a.body), std::string(a.content_type));
}

}  // namespace

void add_pages(httplib::Server& svr) {
  // The page itself; every view is a fragment of it (/#/candidate/c-...), so one document serves all.
  svr.Get("/", [](const httplib::Request&, httplib::Response& res) {
    if (const Asset* a = find_asset("index.html")) send_asset(res, *a);
  });
  svr.Get("/ui/([a-z0-9_]{1,64}\\.(?:js|css|svg|html))", [](const httplib::Request& req, httplib::Response& res) {
    if (const Asset* a = find_asset(std::string(req.matches[1]))) return send_asset(res, *a);
    api::send_error(res, 404, "not_found", "no page file " + req.path + " (the pages are at /)");
  });
}

}  // namespace kwb::web
