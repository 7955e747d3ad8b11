#include "api/openapi.hpp"

#include <string_view>

namespace kwb::api {

namespace {

const RouteDoc k_routes[] = {
    {"get", "/v1/health", "", "Liveness, version, queue figures"},
    {"get", "/v1/devices", "agent", "Devices and their calibrated peaks"},
    {"get", "/v1/specs", "agent", "All operator specs"},
    {"get", "/v1/specs/{op}", "agent", "One operator spec"},
    {"post", "/v1/specs", "reviewer",
     "Add an op, or a new version of one: its spec folder's files are validated, committed into the library as one "
     "commit and served at once (201; 200 when the library already holds the same files)"},
    {"get", "/v1/analysis/rules", "agent", "The static-analysis rules (id, severity, summary)"},
    {"post", "/v1/candidates", "agent", "Submit a candidate (202 with id and links; honours Idempotency-Key)"},
    {"get", "/v1/candidates", "agent", "List candidates, newest first (filters op, state, status; limit, before)"},
    {"get", "/v1/candidates/{id}", "agent", "One candidate with its verdict; ?wait=S long-polls until done"},
    {"get", "/v1/candidates/{id}/events", "agent", "Progress as Server-Sent Events, or JSON with ?wait=S&after=N"},
    {"post", "/v1/candidates/{id}/cancel", "agent",
     "Cancel a queued or running candidate (its owner, a reviewer or an admin; 403 for other tokens)"},
    {"post", "/v1/candidates/{id}/promote", "reviewer",
     "Promote an accepted candidate that beats the incumbent: one library commit (409 with the reason otherwise)"},
    {"post", "/v1/candidates/{id}/reject", "reviewer", "Reject a candidate (body: {reason})"},
    {"get", "/v1/candidates/{id}/diff", "agent",
     "Unified diff against the incumbent with the per-workload table (?format=text: the diff alone)"},
    {"get", "/v1/leaderboard/{op}", "agent", "Accepted candidates of an op, fastest against the incumbent first"},
    {"get", "/v1/library", "agent", "The library's dispatch entries at its head commit"},
    {"get", "/v1/library/{op}", "agent", "One op's dispatch entries and library history"},
    {"post", "/v1/library/{op}/retime", "reviewer", "Queue the op's incumbents for evaluation here: fresh tuning records replace theirs (202 with the candidate ids)"},
    {"post", "/v1/tokens", "admin", "Create a token (body: {name, role}); the token is shown once"},
    {"get", "/v1/tokens", "admin", "List tokens (never their secrets)"},
    {"delete", "/v1/tokens/{token_id}", "admin",
     "Revoke a token, effective from the next request (404 unknown; 409 for the last live admin token)"},
    {"get", "/metrics", "", "Prometheus metrics"},
    {"get", "/openapi.json", "", "This document"},
};

nlohmann::json error_schema() {
  return {{"type", "object"},
          {"required", {"error"}},
          {"properties",
           {{"error",
             {{"type", "object"},
              {"required", {"type", "message"}},
              {"properties", {{"type", {{"type", "string"}}}, {"message", {{"type", "string"}}}}}}}}}};
}

nlohmann::json add_spec_schema() {
  return {{"type", "object"},
          {"required", {"files"}},
          {"additionalProperties", false},
          {"properties",
           {{"files",
             {{"type", "object"},
              {"description", "The spec folder: file name -> content. spec.json and reference.cpp are required; "
                              "reference.cu, reference* sources, the baselines' files and README.md may come too. "
                              "At most 16 files, 256 KiB each, 768 KiB in all."},
              {"minProperties", 2},
              {"maxProperties", 16},
              {"propertyNames", {{"pattern", "^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$"}}},
              {"additionalProperties", {{"type", "string"}, {"maxLength", 262144}}}}}}}};
}

nlohmann::json submit_schema() {
  return {{"type", "object"},
          {"required", {"op", "source"}},
          {"additionalProperties", false},
          {"properties",
           {{"op", {{"type", "string"}}},
            {"variant", {{"type", "string"}}},
            {"backend", {{"type", "string"}, {"enum", {"cpu", "cuda", "cuda-launcher"}}}},
            {"source", {{"type", "string"}, {"maxLength", 262144}}},
            {"source_name", {{"type", "string"}, {"pattern", "^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$"}}},
            {"flags", {{"type", "array"}, {"items", {{"type", "string"}}}}},
            {"note", {{"type", "string"}, {"maxLength", 4096}}},
            {"parent", {{"type", "string"}, {"pattern", "^c-[0-9a-f]{16}$"}}},
            {"launch", {{"oneOf", nlohmann::json::array({nlohmann::json{{"type", "string"}},
                                                         nlohmann::json{{"type", "array"}, {"items", {{"type", "string"}}}}})},
                        {"description", "cuda only: the launch plan, appended to the source as kwb:launch lines"}}},
            {"tune", {{"type", "object"},
                      {"additionalProperties", {{"type", "array"}, {"minItems", 1}, {"items", {{"type", "integer"}}}}},
                      {"description", "cuda only: tunables, e.g. {\"BLOCK\": [128, 256]}"}}},
            {"bench", {{"type", "array"}, {"items", {{"type", "string"}}}}}}}};
}

}  // namespace

std::span<const RouteDoc> route_docs() { return k_routes; }

nlohmann::json openapi_document(const std::string& version) {
  nlohmann::json paths = nlohmann::json::object();
  for (const auto& r : k_routes) {
    nlohmann::json op = {{"summary", r.summary}, {"responses", nlohmann::json::object()}};
    op["responses"]["200"] = {{"description", "OK"}};
    if (std::string_view(r.role).size()) {
      op["security"] = nlohmann::json::array({{{"bearer", nlohmann::json::array()}}});
      op["x-kwb-role"] = r.role;
      op["responses"]["401"] = {{"description", "Missing or unknown token"},
                                {"content", {{"application/json", {{"schema", {{"$ref", "#/components/schemas/Error"}}}}}}}};
      op["responses"]["403"] = {{"description", "The token's role is too low"}};
    }
    // Answered by the connection gate to any request (docs/security.md, "The HTTP API").
    op["responses"]["400"] = {{"description", "Malformed request line, header, body or field (the message names it)"}};
    op["responses"]["408"] = {{"description", "Headers not complete within the header timeout, or body within the body timeout"}};
    op["responses"]["431"] = {{"description", "Request line and headers over 32 KiB, or a header line over 8 KiB"}};
    op["responses"]["503"] = {{"description", "too_many_connections / too_many_streams / server_busy; see Retry-After"}};
    op["responses"]["429"] = {{"description", "Rate limit, queue quota, failed logins from this address, or too many "
                                              "connections from it; see Retry-After"}};
    if (std::string_view(r.method) != "get") {
      op["responses"]["413"] = {{"description", "Body over 1 MiB on the wire (chunked or not)"}};
      op["responses"]["415"] = {{"description", "Compressed request body (Content-Encoding)"}};
    }
    std::string path = r.path;
    if (path.find("{id}") != std::string::npos)
      op["parameters"] = nlohmann::json::array({{{"name", "id"}, {"in", "path"}, {"required", true},
                                                 {"schema", {{"type", "string"}, {"pattern", "^c-[0-9a-f]{16}$"}}}}});
    if (path.find("{token_id}") != std::string::npos) {
      op["parameters"] = nlohmann::json::array({{{"name", "token_id"}, {"in", "path"}, {"required", true},
                                                 {"schema", {{"type", "integer"}, {"minimum", 1}}}}});
      op["responses"]["404"] = {{"description", "No such token"}};
      op["responses"]["409"] = {{"description", "last_admin: the last live admin token is not revoked over HTTP"}};
    }
    if (path.find("/cancel") != std::string::npos)
      op["responses"]["404"] = {{"description", "No such candidate"}};
    if (path.find("{op}") != std::string::npos)
      op["parameters"] = nlohmann::json::array({{{"name", "op"}, {"in", "path"}, {"required", true},
                                                 {"schema", {{"type", "string"}}}}});
    if (path == "/v1/candidates" && std::string_view(r.method) == "post") {
      op["requestBody"] = {{"required", true},
                           {"content", {{"application/json", {{"schema", {{"$ref", "#/components/schemas/Submit"}}}}}}}};
      op["responses"]["202"] = {{"description", "Accepted: {id, state, links}"}};
      op["responses"]["400"] = {{"description", "Malformed body or field"}};
      op["responses"]["413"] = {{"description", "Body or source too large"}};
      op["responses"]["422"] = {{"description", "Unknown op/variant, unsupported backend, forbidden flag, or "
                                                 "idempotency_conflict: the Idempotency-Key was used with another body"}};
      op["parameters"] = nlohmann::json::array({{{"name", "Idempotency-Key"}, {"in", "header"}, {"required", false},
                                                 {"schema", {{"type", "string"}, {"maxLength", 200}}}}});
    }
    if (path == "/v1/specs" && std::string_view(r.method) == "post") {
      op["requestBody"] = {{"required", true},
                           {"content", {{"application/json", {{"schema", {{"$ref", "#/components/schemas/AddSpec"}}}}}}}};
      op["responses"]["201"] = {{"description", "Added: {status, op, version, digest, commit, replaces, spec}"}};
      op["responses"]["400"] = {{"description", "invalid_spec: error.file and error.field name what is wrong"}};
      op["responses"]["409"] = {{"description", "spec_conflict: the op is served at this version with another "
                                                 "meaning (a changed spec needs a new version), or at a higher version"}};
      op["responses"]["503"] = {{"description", "no_library: this daemon runs without a library"}};
    }
    paths[path][r.method] = op;
  }
  return {{"openapi", "3.1.0"},
          {"info", {{"title", "Kernel Workbench API"}, {"version", version},
                    {"description", "Submit candidate kernels, follow their evaluation, read verdicts (kwb.verdict.v1)."}}},
          {"paths", paths},
          {"components",
           {{"securitySchemes", {{"bearer", {{"type", "http"}, {"scheme", "bearer"}}}}},
            {"schemas", {{"Error", error_schema()}, {"Submit", submit_schema()}, {"AddSpec", add_spec_schema()}}}}}};
}

}  // namespace kwb::api
