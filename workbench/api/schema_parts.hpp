#pragma once
// Builders of JSON Schema fragments for the OpenAPI components (api/openapi_schemas.cpp,
// api/openapi_candidate_schemas.cpp): every object lists its required properties, and more
// properties may come in later versions (clients ignore what they do not know; docs/api.md
// "Compatibility").
#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kwb::api::schema {

using nlohmann::json;

inline json type(const char* t) { return {{"type", t}}; }
inline json str() { return type("string"); }
inline json integer() { return type("integer"); }
inline json number() { return type("number"); }
inline json boolean() { return type("boolean"); }
inline json ref(const std::string& name) { return {{"$ref", "#/components/schemas/" + name}}; }
inline json arr(json items) { return {{"type", "array"}, {"items", std::move(items)}}; }
inline json map_of(json values) { return {{"type", "object"}, {"additionalProperties", std::move(values)}}; }
inline json str_enum(const std::vector<std::string>& values) { return {{"type", "string"}, {"enum", values}}; }
// A value or null.
inline json or_null(json s) {
  if (s.contains("type") && s["type"].is_string() && !s.contains("$ref")) {
    s["type"] = json::array({s["type"], "null"});
    return s;
  }
  return {{"anyOf", json::array({std::move(s), type("null")})}};
}
// An object with these properties, all required unless listed in `optional`; more properties may
// come in later versions (clients should ignore what they do not know).
inline json obj(json props, std::vector<std::string> optional = {}) {
  json required = json::array();
  for (auto& [k, v] : props.items())
    if (std::find(optional.begin(), optional.end(), k) == optional.end()) required.push_back(k);
  return {{"type", "object"}, {"properties", std::move(props)}, {"required", required}};
}
// Numbers JSON cannot hold (NaN, Inf) are written as strings in verdicts.
inline json number_or_text() { return {{"anyOf", json::array({number(), str_enum({"nan", "inf", "-inf"})})}}; }
// A candidate's links (submit, profile and retime replies, the candidate itself).
inline json links() { return obj({{"self", str()}, {"events", str()}, {"cancel", str()}, {"profile", str()}}); }


}  // namespace kwb::api::schema
