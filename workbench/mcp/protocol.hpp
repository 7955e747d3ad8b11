#pragma once
// The MCP server's protocol layer, shared by both transports (HTTP at POST /mcp, stdio in
// `kwb mcp`): the initialize handshake (2025-11-25), the per-request _meta check (2026-07-28),
// and the methods — server/discover, ping, logging/setLevel, tools/*, resources/*, prompts/*,
// completion/complete — each answering a JSON-RPC response message.
#include <functional>
#include <optional>
#include <string>

#include "mcp/json_rpc.hpp"
#include "mcp/rest.hpp"
#include "mcp/revision.hpp"
#include "mcp/session.hpp"

namespace kwb::mcp {

// Everything a request needs besides its message.
struct RequestContext {
  Era era = Era::modern;
  std::string version;                       // the request's revision
  json client_capabilities = json::object();
  Rest* rest = nullptr;                      // the caller's REST API
  std::function<void(const json&)> notify;   // a request-scoped notification (progress)
  std::function<bool()> cancelled = [] { return false; };
  LegacySession* session = nullptr;          // 2025-11-25 only
  int log_level = -1;                        // log messages at this level and above; -1: none (logging.hpp)
};

// The revision and capabilities a 2026-07-28 request declared in its _meta.
struct ModernMeta {
  std::string version;
  json capabilities;
  int log_level = -1;  // _meta["io.modelcontextprotocol/logLevel"]; -1: absent
};

class Protocol {
 public:
  // initialize: negotiates the revision (2025-11-25, the one handshake revision served) into
  // *out. Returns the response message (an error leaves *out alone).
  json initialize(const Incoming& in, Handshake* out) const;
  // A 2026-07-28 request's _meta: -32602 when it or a required field is missing or malformed,
  // -32022 (data: supported, requested) for a revision not served.
  std::variant<ModernMeta, RpcError> modern_meta(const json& params) const;
  // Whether `method` is a request method of the era (else -32601).
  static bool serves(Era era, const std::string& method);
  // Runs a request of the era (not initialize) and returns the response message. Never throws.
  json call(const Incoming& in, RequestContext& ctx) const;

  static json server_info();
  static json capabilities(Era era);
  static const char* instructions();
};

// The groups of methods (resources.cpp, prompts.cpp, tool_calls.cpp); each returns the result
// object, or an RpcError.
using MethodResult = std::variant<json, RpcError>;
MethodResult list_tools(const RequestContext& ctx);
MethodResult call_tool(const json& params, RequestContext& ctx);
MethodResult list_resources(const RequestContext& ctx);
MethodResult list_resource_templates(const RequestContext& ctx);
MethodResult read_resource(const json& params, const RequestContext& ctx);
MethodResult list_prompts(const RequestContext& ctx);
MethodResult get_prompt(const json& params, const RequestContext& ctx);
MethodResult complete(const json& params, const RequestContext& ctx);

}  // namespace kwb::mcp
