#include "mcp/header_value.hpp"

namespace kwb::mcp {

namespace {

int b64(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::optional<std::string> decode_header_value(const std::string& v) {
  constexpr std::string_view prefix = "=?base64?", suffix = "?=";
  if (!(v.size() >= prefix.size() + suffix.size() && v.starts_with(prefix) && v.ends_with(suffix))) return v;
  std::string data = v.substr(prefix.size(), v.size() - prefix.size() - suffix.size()), out;
  int acc = 0, bits = 0;
  for (char c : data) {
    if (c == '=') break;
    int d = b64(c);
    if (d < 0) return std::nullopt;
    acc = (acc << 6) | d;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xFF);
    }
  }
  return out;
}

std::optional<std::string> routing_header_problem(const Incoming& msg, const std::string& mcp_method, const std::string& mcp_name) {
  if (mcp_method.empty()) return "the Mcp-Method header is required (send " + msg.method + ")";
  if (mcp_method != msg.method) return "Mcp-Method header '" + mcp_method + "' does not match the body's method '" + msg.method + "'";
  const char* field = msg.method == "resources/read"                                         ? "uri"
                      : (msg.method == "tools/call" || msg.method == "prompts/get")             ? "name"
                      : (msg.method == "tasks/get" || msg.method == "tasks/update" || msg.method == "tasks/cancel") ? "taskId"
                                                                                                : nullptr;
  if (!field || !msg.params.contains(field) || !msg.params[field].is_string()) return std::nullopt;
  std::string body = msg.params[field];
  if (mcp_name.empty()) return "the Mcp-Name header is required for " + msg.method + " (send " + body + ")";
  auto decoded = decode_header_value(mcp_name);
  if (!decoded) return "Mcp-Name header '" + mcp_name + "' is not valid =?base64?...?=";
  if (*decoded != body) return "Mcp-Name header '" + *decoded + "' does not match the body's params." + field + " '" + body + "'";
  return std::nullopt;
}

}  // namespace kwb::mcp
