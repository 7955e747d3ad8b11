#pragma once
// The request metadata headers of 2026-07-28 Streamable HTTP: Mcp-Method must equal the body's
// method, and Mcp-Name its params.name (tools/call, prompts/get) or params.uri (resources/read);
// a value may be carried as =?base64?...?= (decoded before comparing).
#include <optional>
#include <string>

#include "mcp/json_rpc.hpp"

namespace kwb::mcp {

// The decoded header value; nullopt when a =?base64?...?= value is not valid base64.
std::optional<std::string> decode_header_value(const std::string& v);
// What is wrong with the routing headers of `msg`, or nullopt.
std::optional<std::string> routing_header_problem(const Incoming& msg, const std::string& mcp_method, const std::string& mcp_name);

}  // namespace kwb::mcp
