#pragma once
// Route registration by OpenAPI path template ("/v1/candidates/{id}"): each template becomes the
// httplib pattern with one regex per path parameter, and the router keeps the list of what it
// registered, which a test compares with /openapi.json (api/openapi.hpp) both ways.
#include <string>
#include <string_view>
#include <vector>

#include <httplib.h>

namespace kwb::api {

struct RouteKey {
  std::string method;  // "get" | "post" | "delete"
  std::string path;    // the OpenAPI path template
  bool operator==(const RouteKey&) const = default;
  auto operator<=>(const RouteKey&) const = default;
};

// "/v1/candidates/{id}/events" -> "/v1/candidates/(c-[0-9a-f]{16})/events"; {op} and
// {token_id} likewise. An unknown parameter name is a programming error (throws).
std::string path_pattern(std::string_view path_template);

class Router {
 public:
  explicit Router(httplib::Server& svr) : m_svr(svr) {}
  void Get(const std::string& path_template, httplib::Server::Handler handler);
  void Post(const std::string& path_template, httplib::Server::Handler handler);
  void Delete(const std::string& path_template, httplib::Server::Handler handler);
  const std::vector<RouteKey>& routes() const { return m_routes; }

 private:
  httplib::Server& m_svr;
  std::vector<RouteKey> m_routes;
};

}  // namespace kwb::api
