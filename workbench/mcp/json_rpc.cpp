#include "mcp/json_rpc.hpp"

#include <variant>

namespace kwb::mcp {

json make_result(const json& id, json result) { return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}; }

json make_error(const json& id, const RpcError& e) {
  json err = {{"code", e.code}, {"message", e.message}};
  if (!e.data.is_null()) err["data"] = e.data;
  json out = {{"jsonrpc", "2.0"}, {"error", std::move(err)}};
  if (!id.is_null()) out["id"] = id;
  return out;
}

json make_notification(const std::string& method, json params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

std::variant<Incoming, Malformed> parse_message(const json& msg) {
  auto bad = [](json id, std::string m) { return Malformed{std::move(id), {code::invalid_request, std::move(m), {}}}; };
  if (msg.is_array())
    return bad(nullptr, "JSON-RPC batches are not supported (MCP 2025-06-18 and later send one message per request)");
  if (!msg.is_object()) return bad(nullptr, "a JSON-RPC message must be a JSON object");
  json id = msg.contains("id") ? msg["id"] : json();
  if (msg.contains("id") && !(id.is_string() || id.is_number_integer()))
    return bad(nullptr, "id: expected a string or an integer (MCP forbids null ids), got " + std::string(id.type_name()));
  if (msg.value("jsonrpc", json()) != "2.0") return bad(id, "jsonrpc: must be \"2.0\"");
  Incoming in;
  if (!msg.contains("method")) {
    if (msg.contains("result") || msg.contains("error")) {
      in.is_response = true;
      if (msg.contains("id")) in.id = id;
      return in;
    }
    return bad(id, "method: required (a request or notification names its method)");
  }
  if (!msg["method"].is_string()) return bad(id, "method: expected a string");
  in.method = msg["method"].get<std::string>();
  if (msg.contains("id")) in.id = id;
  if (msg.contains("params")) {
    if (!msg["params"].is_object())
      return Malformed{id, {code::invalid_params, "params: expected an object (MCP uses named parameters)", {}}};
    in.params = msg["params"];
  }
  return in;
}

std::variant<Incoming, Malformed> parse_message_text(const std::string& text) {
  json msg = json::parse(text, nullptr, false);
  if (msg.is_discarded())
    return Malformed{nullptr, {code::parse_error, "the message is not valid JSON (one JSON-RPC message expected)", {}}};
  return parse_message(msg);
}

}  // namespace kwb::mcp
