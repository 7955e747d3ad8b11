// GET /v1/candidates/{id}/source: the submitted source. GET /v1/candidates/{id}/artifacts/{ptx,cubin,sass}:
// the compiled forms of a cuda-form candidate (docs/api.md "Artifacts"). The pipeline stores each
// config's PTX, cubin and SASS (disassembled in the sandbox) in the object store after the compile
// stage; the verdict's compiler_facts[] name them by sha256.
#include <optional>
#include <utility>

#include "api/access.hpp"
#include "api/http_util.hpp"
#include "api/routes.hpp"
#include "build/disassembler.hpp"
#include "core/backend.hpp"

namespace kwb::api {

namespace {

// The compiler_facts[] entry of ?config=LABEL (default: the first config).
const nlohmann::json* config_entry(const nlohmann::json& verdict, const std::string& label, std::string& labels) {
  if (!verdict.is_object() || !verdict.contains("compiler_facts") || !verdict["compiler_facts"].is_array()) return nullptr;
  for (const auto& f : verdict["compiler_facts"]) {
    if (!f.is_object()) continue;
    std::string name = f.value("config", std::string());
    labels += (labels.empty() ? "" : ", ") + name;
    if (label.empty() || name == label) return &f;
  }
  return nullptr;
}

void artifact(const httplib::Request& req, httplib::Response& res, ApiContext& ctx, const std::string& kind) {
  if (!guard(req, res, ctx, Role::agent)) return;
  if (!only_known_params(req, res, {"config"})) return;
  std::string id = req.matches[1];
  store::CandidateRepository repo(ctx.db);
  auto rec = repo.find(id);
  if (!rec) return send_failure(res, rec.error());
  if (!*rec) return send_error(res, 404, "not_found", "no candidate " + id);
  const auto& r = **rec;
  if (!core::is_backend(r.backend, core::Backend::cuda))
    return send_error(res, 404, "no_artifact",
                      "candidate " + id + " is a " + r.backend + " candidate; only cuda-form candidates keep PTX and "
                      "cubin artifacts");
  if (r.verdict.is_null())
    return send_error(res, 404, "no_artifact", "candidate " + id + " has no verdict yet (state " + std::string(core::state_name(r.state)) +
                                                   "); its artifacts are listed once it has one");
  std::string label = req.has_param("config") ? req.get_param_value("config") : "";
  std::string labels;
  const nlohmann::json* entry = config_entry(r.verdict, label, labels);
  if (!entry)
    return send_error(res, 404, "no_artifact",
                      labels.empty() ? "candidate " + id + " did not compile (verdict " +
                                           r.verdict.value("status", std::string("?")) + "): there are no artifacts"
                                     : "candidate " + id + " has no config '" + label + "' (its configs: " + labels + ")");
  std::string sha = entry->value(kind + "_sha256", nlohmann::json(nullptr)).is_string()
                        ? entry->value(kind + "_sha256", std::string())
                        : std::string();
  if (kind == "sass" && sha.empty()) {
    std::string note = entry->value("sass_note", nlohmann::json(nullptr)).is_string()
                           ? entry->value("sass_note", std::string())
                           : std::string();
    if (auto tool = build::find_disassembler(); !tool)
      return send_error(res, 501, "not_implemented",
                        "no SASS for config '" + entry->value("config", std::string()) + "': " + tool.error().message +
                            "; fetch the cubin (artifacts/cubin) and run `nvdisasm -c` on it");
    return send_error(res, 404, "no_artifact",
                      "no SASS for config '" + entry->value("config", std::string()) + "': " +
                          (note.empty() ? "evaluated before SASS was kept" : note));
  }
  auto data = sha.empty() ? util::Result<std::string>(util::fail("artifact", "not recorded")) : ctx.objects.get(sha);
  if (!data)
    return send_error(res, 404, "no_artifact",
                      "the " + kind + " of config '" + entry->value("config", std::string()) + "' is not stored (" +
                          data.error().what() + "): evaluated by `kwb eval`, or before artifacts were kept");
  res.set_header("Content-Disposition", "attachment; filename=\"" + id + "-" + kind + "." + kind + "\"");
  res.set_content(*data, kind == "cubin" ? "application/octet-stream" : "text/plain; charset=utf-8");
}

// An agent's request for candidate {id}'s stored verdict (null where it has none yet): the id and
// the verdict, or nothing when the answer was sent (no access, unknown parameters, no candidate).
std::optional<std::pair<std::string, nlohmann::json>> stored_verdict(const httplib::Request& req,
                                                                     httplib::Response& res, ApiContext& ctx) {
  if (!guard(req, res, ctx, Role::agent) || !only_known_params(req, res, {})) return std::nullopt;
  std::string id = req.matches[1];
  auto rec = store::CandidateRepository(ctx.db).find(id);
  if (!rec) {
    send_failure(res, rec.error());
    return std::nullopt;
  }
  if (!*rec) {
    send_error(res, 404, "not_found", "no candidate " + id);
    return std::nullopt;
  }
  return std::make_pair(id, (*rec)->verdict);
}

// GET /v1/candidates/{id}/artifacts/samples|blocks: the raw samples of its timed workloads and
// the block pairs of its comparison (docs/verdict.md "Samples"), as the verdict names them.
void samples(const httplib::Request& req, httplib::Response& res, ApiContext& ctx, const std::string& kind) {
  auto found = stored_verdict(req, res, ctx);
  if (!found) return;
  const auto& [id, v] = *found;
  const nlohmann::json summary = v.is_object() ? v.value("summary", nlohmann::json::object()) : nlohmann::json::object();
  const std::string field = kind + "_sha256";
  const std::string sha = summary.contains(field) && summary[field].is_string() ? summary[field].get<std::string>() : "";
  if (sha.empty())
    return send_error(res, 404, "no_artifact",
                      "candidate " + id + " has no " + kind + " (" +
                          (v.is_null() ? "no verdict yet"
                                       : kind == "blocks" ? "no comparison with an incumbent was timed, or it is pending"
                                                          : "no bench workload was timed") +
                          ")");
  auto data = ctx.objects.get(sha);
  if (!data) return send_error(res, 404, "no_artifact", "the " + kind + " of " + id + " are not stored: " + data.error().what());
  res.status = 200;
  res.set_content(*data, "application/json");
}

// GET /v1/candidates/{id}/artifacts/ncu: Nsight Compute's raw reports of its profile pass
// (kwb.ncu.v1: per bench workload, ncu's CSV of the raw page), as verdict.profile names them.
void ncu_report(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  auto found = stored_verdict(req, res, ctx);
  if (!found) return;
  const auto& [id, v] = *found;
  const nlohmann::json profile = v.is_object() ? v.value("profile", nlohmann::json()) : nlohmann::json();
  if (!profile.is_object())
    return send_error(res, 404, "no_artifact",
                      "candidate " + id + " has no profile (" + (v.is_null() ? "no verdict yet" : "none was asked for") +
                          "): ask for one with POST /v1/candidates/" + id + "/profile");
  const std::string sha = profile.contains("report_sha256") && profile["report_sha256"].is_string()
                              ? profile["report_sha256"].get<std::string>()
                              : "";
  if (sha.empty())
    return send_error(res, 404, "no_artifact",
                      "candidate " + id + " has no Nsight Compute report: its profile is " +
                          profile.value("status", std::string("?")) + " (" + profile.value("reason", std::string()) + ")");
  auto data = ctx.objects.get(sha);
  if (!data) return send_error(res, 404, "no_artifact", "the ncu report of " + id + " is not stored: " + data.error().what());
  res.status = 200;
  res.set_content(*data, "application/json");
}

// The submitted source, as stored (text/plain): what the review page shows diagnostics against.
void source(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  if (!guard(req, res, ctx, Role::agent)) return;
  if (!only_known_params(req, res, {})) return;
  std::string id = req.matches[1];
  auto rec = store::CandidateRepository(ctx.db).find(id);
  if (!rec) return send_failure(res, rec.error());
  if (!*rec) return send_error(res, 404, "not_found", "no candidate " + id);
  auto data = ctx.objects.get((*rec)->source_sha256);
  if (!data) return send_failure(res, data.error());
  res.status = 200;
  res.set_content(*data, "text/plain; charset=utf-8");
}

}  // namespace

void add_artifact_routes(Router& svr, ApiContext& ctx) {
  svr.Get("/v1/candidates/{id}/source", [&ctx](const httplib::Request& q, httplib::Response& s) { source(q, s, ctx); });
  for (const char* kind : {"ptx", "cubin", "sass"})
    svr.Get(std::string("/v1/candidates/{id}/artifacts/") + kind,
            [&ctx, kind = std::string(kind)](const httplib::Request& q, httplib::Response& s) { artifact(q, s, ctx, kind); });
  svr.Get("/v1/candidates/{id}/artifacts/ncu", [&ctx](const httplib::Request& q, httplib::Response& s) { ncu_report(q, s, ctx); });
  for (const char* kind : {"samples", "blocks"})
    svr.Get(std::string("/v1/candidates/{id}/artifacts/") + kind,
            [&ctx, kind = std::string(kind)](const httplib::Request& q, httplib::Response& s) { samples(q, s, ctx, kind); });
}

}  // namespace kwb::api
