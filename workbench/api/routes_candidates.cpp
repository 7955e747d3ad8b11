// POST /v1/candidates, GET /v1/candidates[/{id}], POST /v1/candidates/{id}/cancel|profile
#include <algorithm>
#include <thread>

#include "api/access.hpp"
#include "api/body_fields.hpp"
#include "api/candidate_json.hpp"
#include "api/http_util.hpp"
#include "api/routes.hpp"
#include "core/filters.hpp"
#include "library/device_class.hpp"

namespace kwb::api {

namespace {

nlohmann::json receipt_json(const exec::Receipt& r) {
  nlohmann::json j = {{"id", r.id}, {"state", std::string(core::state_name(r.state))}, {"links", candidate_links(r.id)}};
  if (r.parent) j["parent"] = *r.parent;
  return j;
}

// A new candidate: 202 with its id and links; a replayed Idempotency-Key: 200 with its candidate.
void send_receipt(httplib::Response& res, const exec::Receipt& r) {
  if (r.replay) {
    res.set_header("Idempotent-Replay", "true");
    return send_json(res, 200, receipt_json(r));
  }
  res.set_header("Location", "/v1/candidates/" + r.id);
  send_json(res, 202, receipt_json(r));
}

void submit(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  auto who = guard(req, res, ctx, Role::agent);
  if (!who) return;
  std::optional<std::string> key;
  if (req.has_header("Idempotency-Key")) key = req.get_header_value("Idempotency-Key");
  auto receipt = ctx.intake.submit(who->token_id, req.body, key);
  if (!receipt) return send_refusal(res, receipt.error());
  send_receipt(res, *receipt);
}

// Whether `who` submitted the candidate (the "mine" field; under --no-auth every candidate
// submitted without a token is the anonymous caller's).
bool submitted_by(const Principal& who, const store::CandidateRecord& rec) { return rec.token_id.value_or(0) == who.token_id; }

void get_one(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  auto who = guard(req, res, ctx, Role::agent);
  if (!who) return;
  auto wait_s = query_int(req, res, "wait", 0, 0, ctx.limits.max_wait_s);
  if (!wait_s) return;
  // ?until=verdict: a long-poll answers once the verdict is stored, not waiting for the decision
  // that may follow it (docs/api.md "Verdict first, decision second"); decision (the default): both.
  bool refused = false;
  auto until = query_choice(req, res, "until", {"verdict", "decision"}, refused);
  if (refused) return;
  const bool verdict_only = until && *until == "verdict";
  std::string id = req.matches[1];
  store::CandidateRepository repo(ctx.db);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(*wait_s);
  while (true) {
    uint64_t seen = ctx.hub.version(id);
    auto rec = repo.find(id);
    if (!rec) return send_failure(res, rec.error());
    if (!*rec) return send_error(res, 404, "not_found", "no candidate " + id);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    // Done with its comparison pending: the verdict is there; a long-poll waits for the decision too.
    const bool settled = core::is_terminal((*rec)->state) &&
                         (verdict_only || (*rec)->comparison_state != core::ComparisonState::pending);
    if (settled || left.count() <= 0 || ctx.hub.is_shutdown()) {
      auto j = candidate_json(**rec, true);
      j["mine"] = submitted_by(*who, **rec);
      if (auto ok = add_outcomes(ctx.db, id, j); !ok) return send_failure(res, ok.error());
      return send_json(res, 200, j);
    }
    ctx.hub.wait(id, seen, left);
  }
}

void list(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  auto who = guard(req, res, ctx, Role::agent);
  if (!who) return;
  if (!only_known_params(req, res, {"op", "state", "status", "mine", "limit", "before", "device_class"})) return;
  store::CandidateFilter f;
  if (req.has_param("device_class")) {  // a valid class may match none (another fleet's)
    f.device_class = req.get_param_value("device_class");
    if (auto why = library::why_not_a_device_class(*f.device_class); !why.empty())
      return send_error(res, 400, "bad_parameter", "query parameter 'device_class': " + why);
  }
  bool refused = false;
  if (auto mine = query_choice(req, res, "mine", {"true", "false"}, refused); mine && *mine == "true") f.token_id = who->token_id;
  if (refused) return;
  auto limit = query_int(req, res, "limit", 50, 1, 500);
  if (!limit) return;
  f.limit = int(*limit);
  if (req.has_param("before")) {
    auto before = query_int(req, res, "before", 0, 1, INT64_MAX);
    if (!before) return;
    f.before_seq = *before;
  }
  if (auto op = query_choice(req, res, "op", ctx.catalog.ops(), refused)) f.op = *op;
  if (refused) return;
  if (auto state = query_choice(req, res, "state", core::candidate_states(), refused)) f.state = *state;
  if (refused) return;
  if (auto status = query_choice(req, res, "status", core::verdict_statuses(), refused)) f.status = *status;
  if (refused) return;
  store::CandidateRepository repo(ctx.db);
  auto rows = repo.list(f);
  if (!rows) return send_failure(res, rows.error());
  nlohmann::json items = nlohmann::json::array();
  for (const auto& r : *rows) {
    items.push_back(candidate_json(r, false));
    items.back()["mine"] = submitted_by(*who, r);
  }
  nlohmann::json next = nullptr;
  if (int64_t(rows->size()) == f.limit) {  // the next page keeps the filters
    std::string link = "/v1/candidates?limit=" + std::to_string(f.limit) + "&before=" + std::to_string(rows->back().seq);
    for (const auto& [key, value] : {std::pair{"op", f.op}, std::pair{"state", f.state}, std::pair{"status", f.status},
                                      std::pair{"device_class", f.device_class}})
      if (value) link += std::string("&") + key + "=" + httplib::detail::encode_query_param(*value);
    if (f.token_id) link += "&mine=true";
    next = link;
  }
  send_json(res, 200, {{"items", items}, {"next", next}});
}

void cancel(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  auto who = guard(req, res, ctx, Role::agent);
  if (!who) return;
  std::string id = req.matches[1];
  if (!empty_or_object_body(req, res)) return;
  store::CandidateRepository repo(ctx.db);
  auto rec = repo.find(id);
  if (!rec) return send_failure(res, rec.error());
  if (!*rec) return send_error(res, 404, "not_found", "no candidate " + id);
  if (!may_write(*who, **rec)) return send_error(res, 403, "forbidden", not_yours(*who, **rec, "cancel"));
  auto state = ctx.pipeline.cancel(id);
  if (!state) {
    if (state.error().kind == kwb::util::ErrorKind::not_found) return send_error(res, 404, "not_found", "no candidate " + id);
    return send_failure(res, state.error());
  }
  using S = core::CandidateState;
  std::string note = *state == S::cancelled ? "cancelled"
                     : *state == S::done    ? "already done; nothing to cancel"
                                            : "cancellation requested; it stops after the current stage";
  send_json(res, 200, {{"id", id}, {"state", std::string(core::state_name(*state))}, {"detail", note}});
}

// POST /v1/candidates/{id}/profile: the candidate again, as a new candidate of the caller's token
// with "profile": true and parent {id} (docs/api.md "Profiles"): a profile is a separate pass of
// its own evaluation, so the first verdict's timed figures stay as they were.
void profile(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  auto who = guard(req, res, ctx, Role::agent);
  if (!who) return;
  std::string id = req.matches[1];
  if (!empty_or_object_body(req, res)) return;
  if (!req.body.empty()) {
    auto body = nlohmann::json::parse(req.body, nullptr, false);
    if (body.is_object() && !body.empty())
      return send_error(res, 400, "invalid_request", body.begin().key() + ": unknown field (the body is {} or nothing)");
  }
  auto receipt = ctx.intake.profile(who->token_id, id);
  if (!receipt) return send_refusal(res, receipt.error());
  send_receipt(res, *receipt);
}

}  // namespace

void add_candidate_routes(Router& svr, ApiContext& ctx) {
  svr.Post("/v1/candidates", [&ctx](const httplib::Request& q, httplib::Response& s) { submit(q, s, ctx); });
  svr.Get("/v1/candidates", [&ctx](const httplib::Request& q, httplib::Response& s) { list(q, s, ctx); });
  svr.Get("/v1/candidates/{id}", [&ctx](const httplib::Request& q, httplib::Response& s) { get_one(q, s, ctx); });
  svr.Post("/v1/candidates/{id}/cancel",
           [&ctx](const httplib::Request& q, httplib::Response& s) { cancel(q, s, ctx); });
  svr.Post("/v1/candidates/{id}/profile",
           [&ctx](const httplib::Request& q, httplib::Response& s) { profile(q, s, ctx); });
}

}  // namespace kwb::api
