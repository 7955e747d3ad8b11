// resources/list, resources/templates/list, resources/read: kwb:// URIs for the specs
// (kwb://specs/{op}, the JSON of GET /v1/specs/{op}) and the incumbents' sources
// (kwb://library/{path}, the file of the library's head commit that dispatch.json names).
#include "mcp/protocol.hpp"
#include "mcp/tool.hpp"

namespace kwb::mcp {

namespace {

constexpr std::string_view k_specs = "kwb://specs/";
constexpr std::string_view k_library = "kwb://library/";

RpcError not_found(const RequestContext& ctx, const std::string& uri, const std::string& why) {
  // 2026-07-28 answers -32602 (it retired -32002, which 2025-11-25 defines for this).
  return {ctx.era == Era::modern ? code::invalid_params : code::resource_not_found_legacy, "Resource not found: " + uri + ": " + why,
          {{"uri", uri}}};
}

RpcError rest_failure(const RestReply& r, const std::string& what) { return {code::internal_error, what + ": " + r.error_line(), {}}; }

std::string mime_of(const std::string& path) {
  if (path.ends_with(".json")) return "application/json";
  if (path.ends_with(".cu")) return "text/x-cuda";
  return "text/x-c++src";
}

}  // namespace

MethodResult list_resources(const RequestContext& ctx) {
  auto specs = ctx.rest->get("/v1/specs");
  if (!specs.ok()) return rest_failure(specs, "resources/list: GET /v1/specs");
  json out = json::array();
  for (const auto& s : specs.body.value("specs", json::array())) {
    std::string op = s.value("op", "");
    out.push_back({{"uri", std::string(k_specs) + op},
                   {"name", "spec " + op},
                   {"title", op + " spec v" + std::to_string(s.value("version", 0))},
                   {"description", s.value("summary", "")},
                   {"mimeType", "application/json"}});
  }
  auto lib = ctx.rest->get("/v1/library");
  if (lib.ok()) {  // 503 no_library: a daemon without a library serves specs only
    for (const auto& e : lib.body.value("entries", json::array())) {
      std::string path = e.value("kernel", "");
      out.push_back({{"uri", std::string(k_library) + path},
                     {"name", path},
                     {"title", "incumbent " + e.value("op", "") + " " + e.value("variant", "") + " " + e.value("backend", "") + " (" +
                                   e.value("device_class", "") + ")"},
                     {"description", "source of the library's incumbent kernel " + path},
                     {"mimeType", mime_of(path)}});
    }
  }
  return json{{"resources", out}};
}

MethodResult list_resource_templates(const RequestContext&) {
  return json{{"resourceTemplates",
               json::array({{{"uriTemplate", "kwb://specs/{op}"},
                             {"name", "spec"},
                             {"title", "Operator spec"},
                             {"description", "An op's spec as GET /v1/specs/{op} serves it"},
                             {"mimeType", "application/json"}},
                            {{"uriTemplate", "kwb://library/{op}/{backend}/{file}"},
                             {"name", "incumbent source"},
                             {"title", "Incumbent kernel source"},
                             {"description", "A kernel file of the library's head commit that is an incumbent (get_incumbent lists them)"}}})}};
}

MethodResult read_resource(const json& params, const RequestContext& ctx) {
  if (!params.contains("uri") || !params["uri"].is_string())
    return RpcError{code::invalid_params, "resources/read: params.uri (a string) is required", {}};
  std::string uri = params["uri"];
  if (uri.starts_with(k_specs)) {
    std::string op = uri.substr(k_specs.size());
    auto r = ctx.rest->get("/v1/specs/" + url_encode(op));
    if (r.status == 404) return not_found(ctx, uri, "no spec for op '" + op + "'");
    if (!r.ok()) return rest_failure(r, "resources/read " + uri);
    return json{{"contents", json::array({{{"uri", uri}, {"mimeType", "application/json"}, {"text", json_text(r.body)}}})}};
  }
  if (uri.starts_with(k_library)) {
    std::string path = uri.substr(k_library.size());
    std::string op = path.substr(0, path.find('/'));
    auto r = ctx.rest->get("/v1/library/" + url_encode(op));
    if (r.status == 404) return not_found(ctx, uri, "no op '" + op + "'");
    if (!r.ok()) return rest_failure(r, "resources/read " + uri);
    for (const auto& e : r.body.value("entries", json::array()))
      if (e.value("kernel", "") == path && e.contains("source") && e["source"].is_string())
        return json{{"contents", json::array({{{"uri", uri}, {"mimeType", mime_of(path)}, {"text", e["source"]}}})}};
    return not_found(ctx, uri, "not an incumbent kernel of " + op + " (resources/list names them)");
  }
  return not_found(ctx, uri, "this server serves kwb://specs/{op} and kwb://library/{path}");
}

}  // namespace kwb::mcp
