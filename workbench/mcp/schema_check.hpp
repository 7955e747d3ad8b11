#pragma once
// Checks tool arguments against the tool's own input schema, so that a bad argument gets a
// message naming it ("arguments.wait_s: expected an integer in [0, 600], got \"x\"") before any
// REST call. It covers the JSON Schema keywords the tool schemas here use (type, properties,
// required, additionalProperties, enum, minimum, maximum, minLength, maxLength, pattern, items,
// minItems, maxItems); it is not a general validator.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kwb::mcp {

// The first problem found, or nullopt when `value` fits `schema`.
std::optional<std::string> schema_problem(const nlohmann::json& schema, const nlohmann::json& value,
                                          const std::string& path = "arguments");

}  // namespace kwb::mcp
