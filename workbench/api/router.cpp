#include "api/router.hpp"

#include <stdexcept>

namespace kwb::api {

namespace {

// The shape of each path parameter; a value of another shape is an unknown route (404).
const char* parameter_regex(std::string_view name) {
  if (name == "id") return "c-[0-9a-f]{16}";
  if (name == "op") return "[a-z0-9_]{1,64}";
  if (name == "token_id") return "[0-9]{1,18}";
  return nullptr;
}

}  // namespace

std::string path_pattern(std::string_view t) {
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '{') {
      out += t[i];
      continue;
    }
    size_t end = t.find('}', i);
    const char* re = end == std::string_view::npos ? nullptr : parameter_regex(t.substr(i + 1, end - i - 1));
    if (!re) throw std::logic_error("route " + std::string(t) + ": unknown path parameter");
    out += std::string("(") + re + ")";
    i = end;
  }
  return out;
}

void RouteTable::add(std::string method, const std::string& pattern, httplib::Server::Handler handler) {
  m_entries.push_back({std::move(method), std::regex(pattern), std::move(handler)});
}

bool RouteTable::dispatch(httplib::Request& req, httplib::Response& res) const {
  for (const auto& e : m_entries) {
    if (e.method != req.method) continue;
    if (!std::regex_match(req.path, req.matches, e.pattern)) continue;
    e.handler(req, res);
    return true;
  }
  return false;
}

void Router::Get(const std::string& path_template, httplib::Server::Handler handler) {
  m_table->add("GET", path_pattern(path_template), handler);
  m_svr.Get(path_pattern(path_template), std::move(handler));
  m_routes.push_back({"get", path_template});
}

void Router::Post(const std::string& path_template, httplib::Server::Handler handler) {
  m_table->add("POST", path_pattern(path_template), handler);
  m_svr.Post(path_pattern(path_template), std::move(handler));
  m_routes.push_back({"post", path_template});
}

void Router::Delete(const std::string& path_template, httplib::Server::Handler handler) {
  m_table->add("DELETE", path_pattern(path_template), handler);
  m_svr.Delete(path_pattern(path_template), std::move(handler));
  m_routes.push_back({"delete", path_template});
}

}  // namespace kwb::api
