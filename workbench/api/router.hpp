#pragma once
// Route registration by OpenAPI path template ("/v1/candidates/{id}"): each template becomes the
// httplib pattern with one regex per path parameter, and the router keeps the list of what it
// registered, which a test compares with /openapi.json (api/openapi.hpp) both ways.
#include <memory>
#include <regex>
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

// The handlers by method and pattern, for a request made in process (the MCP tools' REST calls,
// api/mcp_rest.hpp): matched and run without writing or parsing HTTP text.
class RouteTable {
 public:
  void add(std::string method, const std::string& pattern, httplib::Server::Handler handler);
  // Runs the handler whose method and pattern match `req` (req.path; req.matches is set);
  // false when none does.
  bool dispatch(httplib::Request& req, httplib::Response& res) const;

 private:
  struct Entry {
    std::string method;
    std::regex pattern;
    httplib::Server::Handler handler;
  };
  std::vector<Entry> m_entries;
};

class Router {
 public:
  explicit Router(httplib::Server& svr) : m_svr(svr), m_table(std::make_shared<RouteTable>()) {}
  void Get(const std::string& path_template, httplib::Server::Handler handler);
  void Post(const std::string& path_template, httplib::Server::Handler handler);
  void Delete(const std::string& path_template, httplib::Server::Handler handler);
  const std::vector<RouteKey>& routes() const { return m_routes; }
  // Every handler registered so far and later (shared: it outlives the router).
  std::shared_ptr<const RouteTable> table() const { return m_table; }

 private:
  httplib::Server& m_svr;
  std::vector<RouteKey> m_routes;
  std::shared_ptr<RouteTable> m_table;
};

}  // namespace kwb::api
