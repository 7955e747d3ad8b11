#include "mcp/rest.hpp"

#include <cctype>
#include <cstdio>

namespace kwb::mcp {

std::string RestReply::error_line() const {
  if (status == 0) return raw.empty() ? "the kwb daemon could not be reached" : raw;
  std::string type = "http_error", message = raw.substr(0, 300);
  if (body.is_object() && body.contains("error") && body["error"].is_object()) {
    type = body["error"].value("type", type);
    message = body["error"].value("message", std::string());
  }
  return "HTTP " + std::to_string(status) + " " + type + (message.empty() ? "" : ": " + message);
}

std::string url_encode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += char(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace kwb::mcp
