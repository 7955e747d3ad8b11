#pragma once
// The OpenAPI 3.1 document served at /openapi.json, and the route table it is built from
// (a test checks every documented route answers and every served route is documented).
#include <span>
#include <string>

#include <nlohmann/json.hpp>

namespace kwb::api {

struct RouteDoc {
  const char* method;   // "get" | "post" | "delete"
  const char* path;     // OpenAPI path template, e.g. "/v1/candidates/{id}"
  const char* role;     // minimum role, or "" for public
  const char* summary;
};

std::span<const RouteDoc> route_docs();
nlohmann::json openapi_document(const std::string& version);

}  // namespace kwb::api
