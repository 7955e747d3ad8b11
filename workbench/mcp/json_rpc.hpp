#pragma once
// JSON-RPC 2.0 framing for MCP (docs/mcp.md): the error codes both revisions use, building
// responses, and checking that a message is a well-formed request or notification.
#include <optional>
#include <variant>
#include <string>

#include <nlohmann/json.hpp>

namespace kwb::mcp {

using nlohmann::json;

namespace code {
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;
inline constexpr int resource_not_found_legacy = -32002;  // 2025-11-25 (2026-07-28 uses invalid_params)
inline constexpr int header_mismatch = -32020;            // 2026-07-28
inline constexpr int missing_client_capability = -32021;  // 2026-07-28
inline constexpr int unsupported_protocol_version = -32022;  // 2026-07-28
}  // namespace code

// A JSON-RPC error as a value: what a handler returns instead of a result.
struct RpcError {
  int code = code::internal_error;
  std::string message;
  json data;  // null: none
};

json make_result(const json& id, json result);
json make_error(const json& id, const RpcError& e);  // id null when it could not be read
json make_notification(const std::string& method, json params);

// A parsed client message. `id` is absent for a notification; a response from the client
// (a result or error without a method) is `is_response`.
struct Incoming {
  std::optional<json> id;
  std::string method;
  json params = json::object();
  bool is_response = false;
};

// Checks the JSON-RPC shape of one message (not a batch: MCP 2025-06-18 and later send none).
// On failure: the error to answer, with the id when one could be read.
struct Malformed {
  json id;
  RpcError error;
};
std::variant<Incoming, Malformed> parse_message(const json& msg);
// Parses a whole text (one HTTP body, one stdio line) as a message.
std::variant<Incoming, Malformed> parse_message_text(const std::string& text);

}  // namespace kwb::mcp
