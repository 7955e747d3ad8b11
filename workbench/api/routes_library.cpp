// POST /v1/candidates/{id}/promote|reject, GET /v1/candidates/{id}/diff,
// GET /v1/leaderboard/{op}, GET /v1/review, GET /v1/library[/{op}] — thin adapters over library::Curator.
#include "api/body_fields.hpp"
#include "api/http_util.hpp"
#include "api/routes.hpp"
#include "core/filters.hpp"
#include "library/curator.hpp"

namespace kwb::api {

namespace {

using Code = library::Outcome::Code;

void send_outcome(httplib::Response& res, const library::Outcome& o, int ok_status = 200) {
  switch (o.code) {
    case Code::ok: return send_json(res, ok_status, o.body);
    case Code::not_found: return send_error(res, 404, "not_found", o.message);
    case Code::bad_request: return send_error(res, 400, "invalid_request", o.message);
    case Code::refused: return send_error(res, 409, "not_promotable", o.message);
    case Code::conflict: return send_error(res, 409, "conflict", o.message);
    case Code::internal: return send_error(res, 500, "internal", o.message);
  }
}

bool have_library(httplib::Response& res, ApiContext& ctx) {
  if (ctx.curator) return true;
  send_error(res, 503, "no_library", "this daemon runs without a library (--library)");
  return false;
}

std::optional<int64_t> token_of(const Principal& p) {
  return p.token_id != 0 ? std::optional<int64_t>(p.token_id) : std::nullopt;
}

void promote(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  auto who = guard(req, res, ctx, Role::reviewer);
  if (!who || !have_library(res, ctx) || !empty_or_object_body(req, res)) return;
  send_outcome(res, ctx.curator->promote(req.matches[1], who->name.empty() ? "anonymous" : who->name, token_of(*who)));
  ctx.hub.publish(req.matches[1]);  // its `decision` event, for readers waiting on its events
}

void reject(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  auto who = guard(req, res, ctx, Role::reviewer);
  if (!who || !have_library(res, ctx)) return;
  auto body = object_body(req, res, {"reason"});
  std::string reason;
  if (!body || !string_field(*body, "reason", true, 4096, reason, res)) return;
  send_outcome(res, ctx.curator->reject(req.matches[1], reason, token_of(*who)));
  ctx.hub.publish(req.matches[1]);
}

void diff(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  if (!guard(req, res, ctx, Role::agent) || !have_library(res, ctx)) return;
  bool refused = false;
  (void)query_choice(req, res, "format", {"json", "text"}, refused);
  if (refused) return;
  auto o = ctx.curator->diff(req.matches[1]);
  if (o.code == Code::ok && req.get_param_value("format") == "text") {
    res.status = 200;
    return res.set_content(o.body["diff"].get<std::string>(), "text/x-diff");
  }
  send_outcome(res, o);
}

// One page of the leaderboard: ?limit, ?offset, ?sort (speedup | newest), ?decision (pending |
// promoted | rejected), ?backend; `next` is the path of the next page (null on the last).
void leaderboard(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  if (!guard(req, res, ctx, Role::agent) || !have_library(res, ctx)) return;
  if (!only_known_params(req, res, {"limit", "offset", "sort", "decision", "backend"})) return;
  auto limit = query_int(req, res, "limit", 20, 1, 500);
  if (!limit) return;
  auto offset = query_int(req, res, "offset", 0, 0, int64_t(1) << 40);
  if (!offset) return;
  bool refused = false;
  auto sort = query_choice(req, res, "sort", {"speedup", "newest"}, refused);
  auto decision = refused ? std::nullopt : query_choice(req, res, "decision", {"pending", "promoted", "rejected"}, refused);
  auto backend = refused ? std::nullopt : query_choice(req, res, "backend", core::backend_names(), refused);
  if (refused) return;
  store::LeaderboardQuery q;
  q.backend = backend;
  q.decision = decision;
  q.newest_first = sort && *sort == "newest";
  q.offset = *offset;
  q.limit = int(*limit);
  auto o = ctx.curator->leaderboard(req.matches[1], q);
  if (o.code == Code::ok) {
    nlohmann::json next;
    if (*offset + *limit < o.body["total"].get<int64_t>()) {
      std::string path = "/v1/leaderboard/" + std::string(req.matches[1]) + "?limit=" + std::to_string(*limit) +
                         "&offset=" + std::to_string(*offset + *limit);
      if (sort) path += "&sort=" + *sort;
      if (decision) path += "&decision=" + *decision;
      if (backend) path += "&backend=" + *backend;
      next = path;
    }
    o.body["next"] = next;
  }
  send_outcome(res, o);
}

// The winners waiting for a reviewer, across ops: a reviewer's work list (GET /v1/review).
void review_queue(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  if (!guard(req, res, ctx, Role::reviewer) || !have_library(res, ctx)) return;
  if (!only_known_params(req, res, {"op", "limit"})) return;
  auto limit = query_int(req, res, "limit", 50, 1, 500);
  if (!limit) return;
  bool refused = false;
  auto op = query_choice(req, res, "op", ctx.catalog.ops(), refused);
  if (refused) return;
  send_outcome(res, ctx.curator->pending_review(op, int(*limit)));
}

void library_view(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  if (!guard(req, res, ctx, Role::agent) || !have_library(res, ctx)) return;
  send_outcome(res, ctx.curator->library(req.matches.size() > 1 ? std::string(req.matches[1]) : ""));
}

}  // namespace

void add_library_routes(Router& svr, ApiContext& ctx) {
  svr.Post("/v1/candidates/{id}/promote",
           [&ctx](const httplib::Request& q, httplib::Response& s) { promote(q, s, ctx); });
  svr.Post("/v1/candidates/{id}/reject",
           [&ctx](const httplib::Request& q, httplib::Response& s) { reject(q, s, ctx); });
  svr.Get("/v1/candidates/{id}/diff",
          [&ctx](const httplib::Request& q, httplib::Response& s) { diff(q, s, ctx); });
  svr.Get("/v1/leaderboard/{op}",
          [&ctx](const httplib::Request& q, httplib::Response& s) { leaderboard(q, s, ctx); });
  svr.Get("/v1/review", [&ctx](const httplib::Request& q, httplib::Response& s) { review_queue(q, s, ctx); });
  svr.Get("/v1/library", [&ctx](const httplib::Request& q, httplib::Response& s) { library_view(q, s, ctx); });
  add_library_report_route(svr, ctx);  // before {op}
  svr.Get("/v1/library/{op}",
          [&ctx](const httplib::Request& q, httplib::Response& s) { library_view(q, s, ctx); });
}

}  // namespace kwb::api
