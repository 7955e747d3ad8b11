#include "mcp/protocol.hpp"

#include <exception>

#include "mcp/logging.hpp"
#include "mcp/tasks.hpp"

namespace kwb::mcp {

namespace {

// Results of 2026-07-28 carry resultType, the server's identity in _meta and, for cacheable
// ones, caching hints (docs/mcp.md "Caching").
json modern_result(const std::string& method, json result) {
  if (!result.contains("resultType")) result["resultType"] = "complete";  // a CreateTaskResult is "task"
  result["_meta"][k_meta_server] = Protocol::server_info();
  if (method == "server/discover" || method == "tools/list" || method == "prompts/list" || method == "resources/templates/list") {
    result["ttlMs"] = 3600000;  // the same for every caller until the daemon is upgraded
    result["cacheScope"] = "public";
  } else if (method == "resources/list" || method == "resources/read") {
    result["ttlMs"] = 10000;  // specs and incumbents change when something is promoted or added
    result["cacheScope"] = "private";
  }
  return result;
}

}  // namespace

json Protocol::server_info() { return {{"name", "kwb"}, {"title", "Kernel Workbench"}, {"version", KWB_VERSION}}; }

// No list changes are announced and no resource is subscribable; 2026-07-28 has no logging
// capability (a request's _meta sets its log level). Tasks: tasks.hpp.
json Protocol::capabilities(Era era) {
  if (era == Era::modern)
    return {{"tools", json::object()}, {"resources", json::object()}, {"prompts", json::object()}, {"completions", json::object()},
            {"extensions", {{k_tasks_extension, json::object()}}}};
  return {{"tools", {{"listChanged", false}}},
          {"resources", {{"subscribe", false}, {"listChanged", false}}},
          {"prompts", {{"listChanged", false}}},
          {"completions", json::object()},
          {"logging", json::object()},
          {"tasks", {{"list", json::object()}, {"cancel", json::object()}, {"requests", {{"tools", {{"call", json::object()}}}}}}}};
}

const char* Protocol::instructions() {
  return "Kernel Workbench evaluates candidate CPU and CUDA kernels against operator specs. Loop: list_ops; get_spec OP "
         "(entry signature, tolerances, workloads); get_incumbent OP (the kernel to beat); write a variant; submit_kernel "
         "(with a progressToken it follows the stages); get_verdict ID (status, reason, first mismatch or diagnostic, "
         "speed-up vs the incumbent); diff_vs_incumbent ID; iterate. promote and reject need a reviewer token.";
}

json Protocol::initialize(const Incoming& in, Handshake* out) const {
  const json& p = in.params;
  json id = in.id.value_or(json());
  if (!p.contains("protocolVersion") || !p["protocolVersion"].is_string())
    return make_error(id, {code::invalid_params, "initialize: params.protocolVersion (a string) is required", {}});
  if (p.contains("capabilities") && !p["capabilities"].is_object())
    return make_error(id, {code::invalid_params, "initialize: params.capabilities must be an object", {}});
  // A client asking for another revision gets 2025-11-25 back and decides whether it can speak
  // it (the 2025-11-25 lifecycle); 2026-07-28 has no handshake.
  out->version = std::string(k_legacy_revision);
  out->client_capabilities = p.value("capabilities", json::object());
  return make_result(id, {{"protocolVersion", out->version},
                          {"capabilities", capabilities(Era::legacy)},
                          {"serverInfo", server_info()},
                          {"instructions", instructions()}});
}

std::variant<ModernMeta, RpcError> Protocol::modern_meta(const json& params) const {
  auto invalid = [](std::string m) { return RpcError{code::invalid_params, std::move(m), {}}; };
  if (!params.contains("_meta") || !params["_meta"].is_object())
    return invalid("params._meta is required in 2026-07-28: send io.modelcontextprotocol/protocolVersion and "
                   "io.modelcontextprotocol/clientCapabilities with every request (or initialize first for 2025-11-25)");
  const json& m = params["_meta"];
  if (!m.contains(k_meta_version) || !m[k_meta_version].is_string())
    return invalid(std::string("params._meta.") + k_meta_version + ": required, a string such as \"2026-07-28\"");
  if (!m.contains(k_meta_capabilities) || !m[k_meta_capabilities].is_object())
    return invalid(std::string("params._meta.") + k_meta_capabilities + ": required, an object (may be {})");
  if (m.contains(k_meta_client) && !m[k_meta_client].is_object())
    return invalid(std::string("params._meta.") + k_meta_client + ": expected an object {name, version}");
  int log_level = k_no_logging;
  if (m.contains(k_meta_log_level) && (log_level = log_level_index(m[k_meta_log_level])) < 0)
    return invalid(std::string("params._meta.") + k_meta_log_level +
                   ": expected one of debug, info, notice, warning, error, critical, alert, emergency");
  std::string v = m[k_meta_version];
  if (v != k_modern_revision)
    return RpcError{code::unsupported_protocol_version,
                    "Unsupported protocol version '" + v + "': this server speaks 2026-07-28 per request, and 2025-11-25 "
                    "after an initialize handshake",
                    {{"supported", supported_revisions()}, {"requested", v}}};
  return ModernMeta{v, m[k_meta_capabilities], log_level};
}

bool Protocol::serves(Era era, const std::string& method) {
  static const char* common[] = {"tools/list", "tools/call", "resources/list", "resources/read", "resources/templates/list",
                                 "prompts/list", "prompts/get", "completion/complete"};
  for (const char* m : common)
    if (method == m) return true;
  if (method == "tasks/get" || method == "tasks/cancel") return true;
  if (era == Era::modern) return method == "server/discover" || method == "tasks/update";
  return method == "ping" || method == "logging/setLevel" || method == "tasks/result" || method == "tasks/list";
}

json Protocol::call(const Incoming& in, RequestContext& ctx) const {
  json id = in.id.value_or(json());
  const std::string& method = in.method;
  if (!serves(ctx.era, method)) {
    std::string hint = ctx.era == Era::modern && (method == "initialize" || method == "ping" || method == "logging/setLevel" ||
                                                   method.starts_with("resources/") || method.starts_with("notifications/"))
                           ? " in 2026-07-28 (removed from the stateless revision)"
                       : ctx.era == Era::modern && (method == "tasks/result" || method == "tasks/list")
                           ? " in 2026-07-28 (the tasks extension has neither: tasks/get inlines a completed task's result)"
                       : ctx.era == Era::legacy && method == "tasks/update"
                           ? " in 2025-11-25 (tasks/update is the 2026-07-28 tasks extension's)"
                           : "";
    return make_error(id, {code::method_not_found, "Method not found: " + method + hint, {}});
  }
  MethodResult r;
  try {
    if (method == "server/discover")
      r = json{{"supportedVersions", supported_revisions()}, {"capabilities", capabilities(ctx.era)}, {"instructions", instructions()}};
    else if (method == "ping") r = json::object();
    else if (method == "logging/setLevel") {
      int level = log_level_index(in.params.value("level", json()));
      if (level < 0)
        r = RpcError{code::invalid_params, "logging/setLevel: params.level must be one of debug, info, notice, warning, error, critical, alert, emergency", {}};
      else {
        if (ctx.session) {
          ctx.session->log_level = level;
          ctx.session->log_enabled = true;
        }
        r = json::object();
      }
    } else if (method == "tools/list") r = list_tools(ctx);
    else if (method == "tools/call") r = call_tool(in.params, ctx);
    else if (method == "resources/list") r = list_resources(ctx);
    else if (method == "resources/templates/list") r = list_resource_templates(ctx);
    else if (method == "resources/read") r = read_resource(in.params, ctx);
    else if (method == "prompts/list") r = list_prompts(ctx);
    else if (method == "prompts/get") r = get_prompt(in.params, ctx);
    else if (method == "completion/complete") r = complete(in.params, ctx);
    else if (method == "tasks/get") r = get_task(in.params, ctx);
    else if (method == "tasks/result") r = get_task_result(in.params, ctx);
    else if (method == "tasks/list") r = list_tasks(in.params, ctx);
    else if (method == "tasks/cancel") r = cancel_task(in.params, ctx);
    else if (method == "tasks/update") r = update_task(in.params, ctx);
  } catch (const std::exception& e) {
    r = RpcError{code::internal_error, method + ": internal error: " + e.what(), {}};
  }
  if (auto* e = std::get_if<RpcError>(&r)) return make_error(id, *e);
  json result = std::get<json>(std::move(r));
  return make_result(id, ctx.era == Era::modern ? modern_result(method, std::move(result)) : std::move(result));
}

}  // namespace kwb::mcp
