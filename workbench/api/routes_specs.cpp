// GET /v1/specs, GET /v1/specs/{op}, POST /v1/specs (add an op or a new version of one, with a
// reviewer or admin token; library::SpecIntake does the work). The catalog grows at run time, so
// the listings are rendered from it on every request.
#include "api/body_fields.hpp"
#include "api/http_util.hpp"
#include "api/routes.hpp"
#include "library/spec_intake.hpp"
#include "spec/spec_json.hpp"

namespace kwb::api {

namespace {

void list_specs(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  if (!guard(req, res, ctx, Role::agent)) return;
  nlohmann::json all = nlohmann::json::array();
  for (const auto& op : ctx.catalog.ops())
    if (const core::Spec* s = ctx.catalog.find(op)) all.push_back(spec::to_json(*s));
  send_json(res, 200, {{"specs", all}});
}

void show_spec(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  if (!guard(req, res, ctx, Role::agent)) return;
  const core::Spec* s = ctx.catalog.find(std::string(req.matches[1]));
  if (!s) return send_error(res, 404, "not_found", "no spec for op '" + std::string(req.matches[1]) + "'");
  send_json(res, 200, spec::to_json(*s));
}

// 400 invalid_spec / 409 spec_conflict bodies carry the file and the field apart from the message.
void send_spec_error(httplib::Response& res, int status, const std::string& type, const util::Error& e) {
  std::string file = e.where, field;
  if (auto at = e.where.find(": "); at != std::string::npos) {
    file = e.where.substr(0, at);
    field = e.where.substr(at + 2);
  }
  send_json(res, status, {{"error", {{"type", type}, {"message", e.what()}, {"file", file}, {"field", field}}}});
}

void add_spec(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  auto who = guard(req, res, ctx, Role::reviewer);
  if (!who) return;
  if (!ctx.spec_intake)
    return send_error(res, 503, "no_library", "this daemon runs without a library: specs cannot be added");
  auto body = object_body(req, res, {"files"});
  if (!body) return;
  if (!body->contains("files") || !(*body)["files"].is_object())
    return send_error(res, 400, "invalid_field", "files: required, an object {file name: content}");
  library::FolderFiles files;
  for (const auto& [name, content] : (*body)["files"].items()) {
    if (!content.is_string())
      return send_error(res, 400, "invalid_field", "files." + name + ": expected a string (the file's content)");
    files[name] = content.get<std::string>();
  }
  auto r = ctx.spec_intake->add(files, who->name.empty() ? "anonymous" : who->name);
  using Code = library::SpecAddResult::Code;
  switch (r.code) {
    case Code::added: return send_json(res, 201, r.body());
    case Code::unchanged: return send_json(res, 200, r.body());
    case Code::invalid: return send_spec_error(res, 400, "invalid_spec", r.error);
    case Code::conflict: return send_spec_error(res, 409, "spec_conflict", r.error);
    case Code::internal: return send_failure(res, r.error);
  }
}

}  // namespace

void add_spec_routes(Router& svr, ApiContext& ctx) {
  svr.Get("/v1/specs", [&ctx](const httplib::Request& q, httplib::Response& s) { list_specs(q, s, ctx); });
  svr.Get("/v1/specs/{op}",
          [&ctx](const httplib::Request& q, httplib::Response& s) { show_spec(q, s, ctx); });
  svr.Post("/v1/specs", [&ctx](const httplib::Request& q, httplib::Response& s) { add_spec(q, s, ctx); });
}

}  // namespace kwb::api
