// POST /v1/library/{op}/retime (reviewer): queues the op's incumbents as candidates of the
// reviewer's token; evaluating one stores fresh tuning records for its source, replacing those
// of the same identity (docs/library.md "Re-timing an incumbent").
#include <algorithm>

#include "api/candidate_json.hpp"
#include "api/http_util.hpp"
#include "api/routes.hpp"
#include "library/referee.hpp"
#include "store/candidate_repository.hpp"

namespace kwb::api {

namespace {

void retime(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  auto who = guard(req, res, ctx, Role::reviewer);
  if (!who) return;
  if (!ctx.curator) return send_error(res, 503, "no_library", "this daemon runs without a library (--library)");
  const std::string op = req.matches[1];
  if (!ctx.catalog.find(op)) return send_error(res, 404, "not_found", "no op '" + op + "'");
  std::string backend;
  if (!req.body.empty()) {
    auto body = nlohmann::json::parse(req.body, nullptr, false);
    if (body.is_discarded() || !body.is_object())
      return send_error(res, 400, "invalid_json", "body: expected a JSON object {\"backend\": \"cpu\"} or nothing");
    for (const auto& [key, value] : body.items()) {
      if (key != "backend") return send_error(res, 400, "invalid_request", key + ": unknown field (known: backend)");
      if (!value.is_string()) return send_error(res, 400, "invalid_request", "backend: expected a string");
      backend = value.get<std::string>();
    }
  }
  auto kernels = library::incumbents_of(ctx.curator->repository(), op, backend);
  if (!kernels) return send_error(res, 404, "not_found", kernels.error().what());
  nlohmann::json queued = nlohmann::json::array();
  for (const auto& k : *kernels) {
    const auto& backends = ctx.intake.config().rules.backends;
    if (std::find(backends.begin(), backends.end(), k.backend) == backends.end()) continue;
    auto receipt = ctx.intake.library_kernel(who->token_id, k);
    if (!receipt) return send_refusal(res, receipt.error());
    queued.push_back(
        {{"id", receipt->id}, {"kernel", k.note}, {"backend", k.backend}, {"links", candidate_links(receipt->id)}});
  }
  if (queued.empty()) return send_error(res, 404, "not_found", "no incumbent of '" + op + "' on a backend this daemon evaluates");
  send_json(res, 202, {{"op", op}, {"candidates", queued}});
}

}  // namespace

void add_retime_routes(Router& svr, ApiContext& ctx) {
  svr.Post("/v1/library/{op}/retime",
           [&ctx](const httplib::Request& q, httplib::Response& s) { retime(q, s, ctx); });
}

}  // namespace kwb::api
