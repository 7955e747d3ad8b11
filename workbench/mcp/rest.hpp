#pragma once
// The REST API as one caller sees it (docs/api.md), the only way the MCP tools reach the
// workbench: every tool call is one or more REST calls made with the caller's own bearer token,
// so roles, ownership, quotas, rate limits and validation are exactly the REST API's. `kwb mcp`
// binds it to an HTTP client of a daemon; the daemon's POST /mcp binds it to its own routes,
// called in-process on the same worker (api/mcp_rest.hpp).
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kwb::mcp {

struct RestReply {
  int status = 0;        // 0: no reply (the daemon could not be reached)
  nlohmann::json body;   // the JSON body; null when it is not JSON
  std::string raw;       // the body as sent (for text bodies)
  bool ok() const { return status >= 200 && status < 300; }
  // The API's error as one line: "HTTP 403 forbidden: this route needs the reviewer role ...".
  std::string error_line() const;
};

using RestHeaders = std::vector<std::pair<std::string, std::string>>;

class Rest {
 public:
  virtual ~Rest() = default;
  // target: path and query, e.g. "/v1/candidates/c-0123456789abcdef?wait=30".
  virtual RestReply get(const std::string& target) = 0;
  virtual RestReply post(const std::string& target, const nlohmann::json& body, const RestHeaders& headers = {}) = 0;
};

// Percent-encodes a path segment or query value.
std::string url_encode(const std::string& s);

}  // namespace kwb::mcp
