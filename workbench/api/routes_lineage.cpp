// GET /v1/candidates/{id}/lineage, GET /v1/attempts: what was tried (docs/api.md "Lineage"), as a
// tree through the parent links with the verified best and the latest marked (api/attempt_tree.hpp).
#include "api/attempt_tree.hpp"
#include "api/http_util.hpp"
#include "api/routes.hpp"
#include "store/lineage_query.hpp"

namespace kwb::api {

namespace {

constexpr int k_lineage_default = 200, k_lineage_max = 1000;
constexpr int k_attempts_default = 100, k_attempts_max = 500;

void lineage(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  if (!guard(req, res, ctx, Role::agent)) return;
  if (!only_known_params(req, res, {"limit"})) return;
  auto limit = query_int(req, res, "limit", k_lineage_default, 1, k_lineage_max);
  if (!limit) return;
  std::string id = req.matches[1];
  auto rows = store::lineage_rows(ctx.db, id, int(*limit));
  if (!rows) return send_failure(res, rows.error());
  if (!*rows) return send_error(res, 404, "not_found", "no candidate " + id);
  auto out = attempt_forest(**rows, int(*limit));
  out["id"] = id;
  send_json(res, 200, out);
}

void attempts(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  auto who = guard(req, res, ctx, Role::agent);
  if (!who) return;
  if (!only_known_params(req, res, {"op", "limit"})) return;
  bool refused = false;
  auto op = query_choice(req, res, "op", ctx.catalog.ops(), refused);
  if (refused) return;
  if (!op) return send_error(res, 400, "bad_parameter", "query parameter 'op' is required: the op whose attempts to list");
  auto limit = query_int(req, res, "limit", k_attempts_default, 1, k_attempts_max);
  if (!limit) return;
  auto rows = store::attempt_rows(ctx.db, who->token_id, *op, int(*limit));
  if (!rows) return send_failure(res, rows.error());
  auto out = attempt_forest(*rows, int(*limit));
  out["op"] = *op;
  send_json(res, 200, out);
}

}  // namespace

void add_lineage_routes(Router& svr, ApiContext& ctx) {
  svr.Get("/v1/candidates/{id}/lineage",
          [&ctx](const httplib::Request& q, httplib::Response& s) { lineage(q, s, ctx); });
  svr.Get("/v1/attempts", [&ctx](const httplib::Request& q, httplib::Response& s) { attempts(q, s, ctx); });
}

}  // namespace kwb::api
