#pragma once
// The OpenAPI 3.1 document served at /openapi.json, built from the route table below (every
// route the server registers: tests/unit/api/test_routes.cpp checks both ways) and the component
// schemas (api/openapi_schemas.hpp). tests/integration/test_agent_contract.cpp validates the served
// document with @apidevtools/swagger-parser.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kwb::api {

struct ParamDoc {
  std::string name;
  std::string in;  // "query" | "header"
  nlohmann::json schema;
  std::string description;
  bool required = false;
};

struct ResponseDoc {
  int status;
  std::string description;
  std::string schema;        // component schema name, "" for none
  std::string content_type;  // default application/json
};

struct RouteDoc {
  std::string method;  // "get" | "post" | "delete"
  std::string path;    // OpenAPI path template, e.g. "/v1/candidates/{id}"
  std::string role;    // minimum role, or "" for public
  std::string summary;
  std::vector<ParamDoc> params;        // query and header parameters (path ones follow from the path)
  std::string request;                 // request body schema, "" for none
  bool request_optional = false;       // the body may be left out
  std::vector<ResponseDoc> responses;  // success first, then the route's own errors
};

const std::vector<RouteDoc>& route_docs();
nlohmann::json openapi_document(const std::string& version);

}  // namespace kwb::api
