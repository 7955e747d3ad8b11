// /v1/health /v1/devices /v1/whoami /v1/tokens /metrics /openapi.json (specs: routes_specs.cpp)
#include <map>

#include <fmt/format.h>

#include "api/body_fields.hpp"
#include "api/http_util.hpp"
#include "api/openapi.hpp"
#include "analysis/analyzer.hpp"
#include "api/routes.hpp"
#include "eval/cpu_device.hpp"
#include "library/device_class.hpp"
#include "store/device_repository.hpp"
#include "store/fleet_device_repository.hpp"
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

// The GPUs with their lanes' live state: the candidate on each now, how many each ran.
nlohmann::json gpus_now(const ApiContext& ctx, const exec::PipelineStats& st) {
  nlohmann::json out = nlohmann::json::array();
  for (auto g : ctx.gpus) {
    // device_class was this field's name before it was device_id (docs/api.md "GET /v1/devices"):
    // still sent, deprecated, for clients that read it.
    g["device_class"] = g.value("device_id", std::string());
    g["candidate"] = nullptr;
    g["candidates"] = nlohmann::json::array();
    g["finished"] = 0;
    for (const auto& l : st.lanes)
      if (l.key == g.value("lane", std::string())) {
        if (!l.candidate.empty()) g["candidate"] = l.candidate;
        g["candidates"] = l.candidates;
        g["finished"] = l.finished;
      }
    out.push_back(std::move(g));
  }
  return out;
}

// GPUs taken out of rotation at start-up (a failed warm-up): the daemon runs on, degraded.
nlohmann::json gpu_health(const ApiContext& ctx) {
  int ready = 0;
  nlohmann::json unusable = nlohmann::json::array();
  for (const auto& g : ctx.gpus) {
    if (g.value("status", std::string()) == "ready") ++ready;
    if (g.value("status", std::string()) == "unusable")
      unusable.push_back({{"lane", g.value("lane", std::string())}, {"reason", g.value("reason", std::string())}});
  }
  return {{"lanes", ready}, {"unusable", unusable}};
}

nlohmann::json device_json(const store::DeviceRecord& d, const std::string& device_class) {
  return {{"id", d.id}, {"kind", d.kind}, {"name", d.name}, {"copy_bytes_per_s", d.copy_bytes_per_s},
          {"flops_per_s", d.flops_per_s ? nlohmann::json(*d.flops_per_s) : nlohmann::json(nullptr)},
          {"calibration", d.details}, {"calibrated_at", d.calibrated_at},
          {"device_class", device_class.empty() ? nlohmann::json(nullptr) : nlohmann::json(device_class)}};
}

// The class of a device calibrated on this machine: the CPU's (library/device_class.hpp), a
// GPU's from the compute capability in its identity ("cuda:NVIDIA H200:sm_90:...").
std::string local_device_class(const store::DeviceRecord& d) {
  if (d.kind == "cpu") return library::host_cpu_class();
  auto at = d.id.find(":sm_");
  if (at == std::string::npos) return "";
  auto end = d.id.find(':', at + 1);
  return "cuda-" + d.id.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
}

// GET /v1/devices (docs/fleet.md "Device classes"): every device with its calibration and class,
// and the classes a submission may ask for with their devices' ids. Local: this machine's
// devices table (a CPU of another model, calibrated here before, has no class); slurm: the
// calibrations the workers reported (fleet_devices).
util::Result<nlohmann::json> devices_listing(const ApiContext& ctx) {
  nlohmann::json devices = nlohmann::json::array();
  std::map<std::string, std::vector<std::string>> ids_by_class;
  if (ctx.intake.config().rules.executor == "local") {
    auto all = store::DeviceRepository(ctx.db).all();
    if (!all) return std::unexpected(all.error());
    static const std::string here = eval::detect_cpu().id;
    for (const auto& d : *all) {
      const std::string cls = d.kind == "cpu" && d.id != here ? "" : local_device_class(d);
      devices.push_back(device_json(d, cls));
      if (!cls.empty()) ids_by_class[cls].push_back(d.id);
    }
  } else {
    auto all = store::FleetDeviceRepository(ctx.db).all();
    if (!all) return std::unexpected(all.error());
    for (const auto& f : *all) {
      auto j = device_json(f.device, f.device_class);
      j["partition"] = f.partition;
      j["node"] = f.node;
      j["reported_at"] = f.reported_at;
      devices.push_back(std::move(j));
      ids_by_class[f.device_class].push_back(f.device.id);
    }
  }
  nlohmann::json classes = nlohmann::json::array();
  for (const auto& c : ctx.intake.config().rules.device_classes)
    classes.push_back({{"device_class", c.device_class}, {"kind", c.kind},
                       {"partition", ctx.intake.config().rules.executor == "slurm" ? nlohmann::json(c.partition)
                                                                                   : nlohmann::json(nullptr)},
                       {"devices", ids_by_class[c.device_class]}});
  return nlohmann::json{
      {"executor", ctx.intake.config().rules.executor}, {"devices", devices}, {"device_classes", classes}};
}

}  // namespace

void add_meta_routes(Router& svr, ApiContext& ctx) {
  auto openapi_body = std::make_shared<std::string>(openapi_document(KWB_VERSION).dump(2));

  svr.Get("/v1/health", [&ctx](const httplib::Request&, httplib::Response& res) {
    auto st = ctx.pipeline.stats();
    double up = std::chrono::duration<double>(std::chrono::steady_clock::now() - ctx.started).count();
    auto storage = storage_health(ctx, st);
    auto gpus = gpu_health(ctx);
    const bool ok = storage["problems"].empty() && gpus["unusable"].empty();
    send_json(res, 200, {{"status", ok ? "ok" : "degraded"}, {"version", KWB_VERSION},
                         {"uptime_s", up}, {"auth", ctx.auth.enabled()}, {"backends", ctx.intake.config().rules.backends},
                         {"storage", storage}, {"gpus", gpus},
                         {"queue", {{"queued", st.queued}, {"waiting_for_device", st.waiting_for_device},
                                    {"compiling", st.compiling}, {"on_device", st.on_device},
                                    {"finished", st.finished}, {"unwritten_verdicts", st.unwritten_verdicts}}}});
  });
  svr.Get("/v1/devices", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!guard(req, res, ctx, Role::agent)) return;
    auto listing = devices_listing(ctx);
    if (!listing) return send_failure(res, listing.error());
    (*listing)["gpus"] = gpus_now(ctx, ctx.pipeline.stats());
    send_json(res, 200, *listing);
  });
  // Who the token is: the review pages offer a reviewer's controls by it (the routes decide).
  svr.Get("/v1/whoami", [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto who = guard(req, res, ctx, Role::agent);
    if (!who) return;
    send_json(res, 200, {{"name", who->name.empty() ? "anonymous" : who->name}, {"role", std::string(role_name(who->role))},
                         {"token_id", who->token_id ? nlohmann::json(who->token_id) : nlohmann::json()},
                         {"auth", ctx.auth.enabled()}});
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
