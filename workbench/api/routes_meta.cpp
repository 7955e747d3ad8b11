// /v1/health /v1/devices /v1/tokens /metrics /openapi.json (specs: routes_specs.cpp)
#include <fmt/format.h>

#include "api/body_fields.hpp"
#include "api/http_util.hpp"
#include "api/openapi.hpp"
#include "analysis/analyzer.hpp"
#include "api/routes.hpp"
#include "store/device_repository.hpp"
#include "store/token_repository.hpp"

namespace kwb::api {

namespace {

// Free space, the reserve and what is wrong with the store: a write refused for want of space
// (until a write succeeds), verdicts not yet stored, free space below the reserve.
nlohmann::json storage_health(const ApiContext& ctx, const exec::PipelineStats& st) {
  nlohmann::json problems = nlohmann::json::array();
  nlohmann::json out = nlohmann::json::object();
  if (auto p = ctx.db.storage_problem()) problems.push_back(*p);
  if (st.unwritten_verdicts > 0)
    problems.push_back(std::to_string(st.unwritten_verdicts) + " verdict(s) evaluated but not stored yet (retried): " +
                       st.last_write_error);
  if (ctx.janitor) {
    auto free = ctx.janitor->free_bytes();
    uint64_t reserve = ctx.janitor->config().reserve_bytes;
    out["free_bytes"] = free ? nlohmann::json(*free) : nlohmann::json(nullptr);
    out["reserve_bytes"] = reserve;
    if (free && *free < reserve)
      problems.push_back(fmt::format("{} bytes free on the workspace's disk, below the reserve of {} bytes: free space "
                                     "there (the caches are evicted first)", *free, reserve));
  }
  out["problems"] = problems;
  return out;
}

}  // namespace

void add_meta_routes(Router& svr, ApiContext& ctx) {
  auto openapi_body = std::make_shared<std::string>(openapi_document(KWB_VERSION).dump(2));

  svr.Get("/v1/health", [&ctx](const httplib::Request&, httplib::Response& res) {
    auto st = ctx.pipeline.stats();
    double up = std::chrono::duration<double>(std::chrono::steady_clock::now() - ctx.started).count();
    auto storage = storage_health(ctx, st);
    send_json(res, 200, {{"status", storage["problems"].empty() ? "ok" : "degraded"}, {"version", KWB_VERSION},
                         {"uptime_s", up}, {"auth", ctx.auth.enabled()}, {"backends", ctx.backends},
                         {"storage", storage},
                         {"queue", {{"queued", st.queued}, {"waiting_for_device", st.waiting_for_device},
                                    {"compiling", st.compiling}, {"on_device", st.on_device},
                                    {"finished", st.finished}, {"unwritten_verdicts", st.unwritten_verdicts}}}});
  });
  svr.Get("/v1/devices", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!guard(req, res, ctx, Role::agent)) return;
    store::DeviceRepository repo(ctx.db);
    auto all = repo.all();
    if (!all) return send_failure(res, all.error());
    nlohmann::json items = nlohmann::json::array();
    for (const auto& d : *all)
      items.push_back({{"id", d.id}, {"kind", d.kind}, {"name", d.name}, {"copy_bytes_per_s", d.copy_bytes_per_s},
                       {"flops_per_s", d.flops_per_s ? nlohmann::json(*d.flops_per_s) : nlohmann::json(nullptr)},
                       {"calibration", d.details}, {"calibrated_at", d.calibrated_at}});
    send_json(res, 200, {{"devices", items}});
  });
  svr.Get("/v1/analysis/rules", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!guard(req, res, ctx, Role::agent)) return;
    nlohmann::json items = nlohmann::json::array();
    for (const auto& r : analysis::rules())
      items.push_back({{"id", r.id}, {"severity", r.severity}, {"summary", r.summary}});
    send_json(res, 200, {{"rules", items}, {"version", analysis::k_rules_version}});
  });
  svr.Get("/openapi.json", [openapi_body](const httplib::Request&, httplib::Response& res) {
    res.set_content(*openapi_body, "application/json");
  });
  svr.Get("/metrics", [&ctx](const httplib::Request&, httplib::Response& res) {
    auto st = ctx.pipeline.stats();
    std::string body = fmt::format(
        "# TYPE kwb_queue_depth gauge\nkwb_queue_depth {}\n# TYPE kwb_waiting_for_device gauge\nkwb_waiting_for_device {}\n"
        "# TYPE kwb_compiling gauge\nkwb_compiling {}\n# TYPE kwb_on_device gauge\nkwb_on_device {}\n"
        "# TYPE kwb_verdicts_total counter\nkwb_verdicts_total {}\n"
        "# TYPE kwb_unwritten_verdicts gauge\nkwb_unwritten_verdicts {}\n",
        st.queued, st.waiting_for_device, st.compiling, st.on_device, st.finished, st.unwritten_verdicts);
    res.set_content(body, "text/plain; version=0.0.4");
  });
  svr.Post("/v1/tokens", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!guard(req, res, ctx, Role::admin)) return;
    auto body = object_body(req, res, {"name", "role"});
    std::string name = "unnamed", role;
    if (!body || !string_field(*body, "role", true, 64, role, res) ||
        !string_field(*body, "name", false, 1 << 10, name, res))
      return;
    if (auto why = store::TokenRepository::check_name(name); !why.empty())
      return send_error(res, 400, "invalid_field", why);
    store::TokenRepository tokens(ctx.db);
    auto secret = tokens.create(name, role);
    if (!secret) return send_error(res, 422, "invalid_field", secret.error().what());
    send_json(res, 201, {{"token", *secret}, {"name", name}, {"role", role}});
  });
  // Revocation takes effect at the next request: tokens are looked up on every request.
  svr.Delete("/v1/tokens/{token_id}", [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto who = guard(req, res, ctx, Role::admin);
    if (!who || !empty_or_object_body(req, res)) return;
    int64_t id = std::stoll(req.matches[1]);
    store::TokenRepository tokens(ctx.db);
    auto rec = tokens.find(id);
    if (!rec) return send_failure(res, rec.error());
    if (!*rec) return send_error(res, 404, "not_found", "no token " + std::to_string(id));
    auto& t = **rec;
    nlohmann::json out = {{"id", t.id}, {"name", t.name}, {"role", t.role}, {"revoked", true}};
    if (t.revoked) {
      out["detail"] = "already revoked";
      return send_json(res, 200, out);
    }
    if (t.role == "admin") {
      auto others = tokens.count_live_admins(t.id);
      if (!others) return send_failure(res, others.error());
      if (*others == 0)
        return send_error(res, 409, "last_admin",
                          "token " + std::to_string(id) + " is the last live admin token; create another admin "
                          "token first (kwb token create --role admin)");
    }
    auto done = tokens.revoke(id);
    if (!done) return send_failure(res, done.error());
    out["detail"] = "revoked";
    send_json(res, 200, out);
  });
  svr.Get("/v1/tokens", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!guard(req, res, ctx, Role::admin)) return;
    store::TokenRepository tokens(ctx.db);
    auto all = tokens.all();
    if (!all) return send_failure(res, all.error());
    nlohmann::json items = nlohmann::json::array();
    for (const auto& t : *all)
      items.push_back({{"id", t.id}, {"name", t.name}, {"role", t.role}, {"created_at", t.created_at}, {"revoked", t.revoked}});
    send_json(res, 200, {{"tokens", items}});
  });
}

}  // namespace kwb::api
