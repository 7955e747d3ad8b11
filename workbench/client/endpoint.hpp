#pragma once
// Where the daemon is and which token to send: flag > environment (KWB_SERVER, KWB_TOKEN) >
// default (http://127.0.0.1:8470, no token). Clients never read <workspace>/admin.token.
#include <string>

namespace kwb::client {

inline constexpr const char* k_default_server = "http://127.0.0.1:8470";

struct Endpoint {
  std::string url;    // scheme://host:port, no trailing slash
  std::string token;  // empty: no Authorization header
};

Endpoint resolve_endpoint(const std::string& server_flag, const std::string& token_flag);
// True when a server was named by flag or KWB_SERVER (commands with a local fallback use this).
bool server_named(const std::string& server_flag);

}  // namespace kwb::client
