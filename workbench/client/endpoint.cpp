#include "client/endpoint.hpp"

#include <cstdlib>

namespace kwb::client {

namespace {

std::string from_env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

bool server_named(const std::string& server_flag) { return !server_flag.empty() || !from_env("KWB_SERVER").empty(); }

Endpoint resolve_endpoint(const std::string& server_flag, const std::string& token_flag) {
  Endpoint ep;
  ep.url = !server_flag.empty() ? server_flag : from_env("KWB_SERVER");
  if (ep.url.empty()) ep.url = k_default_server;
  while (ep.url.size() > 1 && ep.url.back() == '/') ep.url.pop_back();
  if (ep.url.find("://") == std::string::npos) ep.url = "http://" + ep.url;
  ep.token = !token_flag.empty() ? token_flag : from_env("KWB_TOKEN");
  return ep;
}

}  // namespace kwb::client
