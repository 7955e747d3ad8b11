// POST /v1/candidates, GET /v1/candidates[/{id}], POST /v1/candidates/{id}/cancel|profile
#include <algorithm>
#include <thread>
#include <variant>

#include "api/access.hpp"
#include "api/body_fields.hpp"
#include "api/candidate_json.hpp"
#include "api/http_util.hpp"
#include "api/routes.hpp"
#include "api/submission.hpp"
#include "core/filters.hpp"
#include "library/device_class.hpp"
#include "store/idempotency_repository.hpp"

namespace kwb::api {

namespace {

// An Idempotency-Key bound by this request is released again if the submission fails before
// its candidate is stored.
class KeyClaim {
 public:
  KeyClaim(store::IdempotencyRepository& keys, int64_t token, const std::optional<std::string>& key, std::string digest)
      : m_keys(keys), m_token(token), m_key(key), m_digest(std::move(digest)) {}
  ~KeyClaim() {
    if (m_fresh && !m_kept) (void)m_keys.release(m_token, *m_key, m_digest);
  }
  util::Result<store::KeyBinding> take() {
    auto b = m_keys.claim(m_token, *m_key, m_digest);
    m_fresh = b && b->fresh;
    return b;
  }
  void keep() { m_kept = true; }

 private:
  store::IdempotencyRepository& m_keys;
  int64_t m_token;
  const std::optional<std::string>& m_key;
  std::string m_digest;
  bool m_fresh = false, m_kept = false;
};

void submit(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  auto who = guard(req, res, ctx, Role::agent);
  if (!who) return;
  auto parsed = parse_submission(req.body, ctx);
  if (auto* e = std::get_if<SubmitError>(&parsed)) return send_error(res, e->status, e->type, e->message);
  auto& sub = std::get<Submission>(parsed);
  if (req.has_header("Idempotency-Key")) {
    std::string key = req.get_header_value("Idempotency-Key");
    if (key.empty() || key.size() > 200) return send_error(res, 400, "invalid_header", "Idempotency-Key: 1 to 200 characters");
    sub.rec.idempotency_key = key;
  }
  if (who->token_id != 0) sub.rec.token_id = who->token_id;
  store::CandidateRepository repo(ctx.db);
  auto replay = [&](const store::CandidateRecord& rec) {
    res.set_header("Idempotent-Replay", "true");
    send_json(res, 200, {{"id", rec.id}, {"state", rec.state}, {"links", candidate_links(rec.id)}});
  };
  // A key is bound to the digest of its first body: the same key with another body is refused,
  // so that an agent never follows the verdict of a submission it did not make.
  store::IdempotencyRepository keys(ctx.db);
  KeyClaim claim(keys, sub.rec.token_id.value_or(0), sub.rec.idempotency_key, sub.request_sha256);
  if (sub.rec.idempotency_key) {
    const std::string& key = *sub.rec.idempotency_key;
    auto bound = claim.take();
    if (!bound) return send_failure(res, bound.error());
    auto seen = repo.find_by_idempotency_key(sub.rec.token_id, key);
    if (!seen) return send_failure(res, seen.error());
    if (bound->request_sha256 != sub.request_sha256)
      return send_error(res, 422, "idempotency_conflict",
                        "Idempotency-Key '" + key + "' was used before with a different body" +
                            (*seen ? " (candidate " + (*seen)->id + ")" : std::string()) +
                            "; send a new key for a new submission");
    // A replayed key answers with its candidate whatever the quota; a new key counts like any
    // other submission (so fresh keys cannot get around the quota).
    if (*seen) return replay(**seen);
  }
  auto active = repo.count_active(sub.rec.token_id);
  if (!active) return send_failure(res, active.error());
  if (*active >= ctx.limits.queue_quota) {
    res.set_header("Retry-After", "5");
    return send_error(res, 429, "queue_quota",
                      "this token has " + std::to_string(*active) + " candidates queued or in flight (quota " +
                          std::to_string(ctx.limits.queue_quota) + "); wait for verdicts");
  }
  auto sha = ctx.objects.put(sub.source);
  // A full disk: the daemon evicts its caches, then the write is tried once more.
  if (!sha && sha.error().kind == util::ErrorKind::storage_full && ctx.db.relieve_space()) sha = ctx.objects.put(sub.source);
  if (!sha) return send_failure(res, sha.error());
  sub.rec.source_sha256 = *sha;
  bool existing = false;
  auto rec = repo.insert(sub.rec, &existing);
  if (!rec) return send_failure(res, rec.error());
  claim.keep();
  if (existing) return replay(*rec);  // a concurrent submit with the same key won the race
  ctx.pipeline.submitted(*rec);
  res.set_header("Location", "/v1/candidates/" + rec->id);
  send_json(res, 202, {{"id", rec->id}, {"state", "queued"}, {"links", candidate_links(rec->id)}});
}

bool terminal(const std::string& state) { return state == "done" || state == "cancelled"; }

// Whether `who` submitted the candidate (the "mine" field; under --no-auth every candidate
// submitted without a token is the anonymous caller's).
bool submitted_by(const Principal& who, const store::CandidateRecord& rec) { return rec.token_id.value_or(0) == who.token_id; }

void get_one(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  auto who = guard(req, res, ctx, Role::agent);
  if (!who) return;
  auto wait_s = query_int(req, res, "wait", 0, 0, ctx.limits.max_wait_s);
  if (!wait_s) return;
  std::string id = req.matches[1];
  store::CandidateRepository repo(ctx.db);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(*wait_s);
  while (true) {
    uint64_t seen = ctx.hub.version(id);
    auto rec = repo.find(id);
    if (!rec) return send_failure(res, rec.error());
    if (!*rec) return send_error(res, 404, "not_found", "no candidate " + id);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (terminal((*rec)->state) || left.count() <= 0 || ctx.hub.is_shutdown()) {
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
  std::string note = *state == "cancelled" ? "cancelled"
                     : *state == "done"    ? "already done; nothing to cancel"
                                           : "cancellation requested; it stops after the current stage";
  send_json(res, 200, {{"id", id}, {"state", *state}, {"detail", note}});
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
  store::CandidateRepository repo(ctx.db);
  auto found = repo.find(id);
  if (!found) return send_failure(res, found.error());
  if (!*found) return send_error(res, 404, "not_found", "no candidate " + id);
  const auto& src = **found;
  if (std::find(ctx.backends.begin(), ctx.backends.end(), src.backend) == ctx.backends.end())
    return send_error(res, 422, "unsupported_backend", "this daemon does not evaluate '" + src.backend + "' candidates");
  store::CandidateRecord rec;
  rec.op = src.op;
  rec.variant = src.variant.empty() && src.verdict.is_object() ? src.verdict.value("variant", std::string()) : src.variant;
  rec.backend = src.backend;
  rec.source_sha256 = src.source_sha256;
  rec.source_name = src.source_name;
  rec.flags = src.flags;
  rec.bench = src.bench;
  rec.note = "profile of " + id;
  rec.parent = id;
  rec.profile = true;
  if (who->token_id != 0) rec.token_id = who->token_id;
  auto active = repo.count_active(rec.token_id);
  if (!active) return send_failure(res, active.error());
  if (*active >= ctx.limits.queue_quota) {
    res.set_header("Retry-After", "5");
    return send_error(res, 429, "queue_quota",
                      "this token has " + std::to_string(*active) + " candidates queued or in flight (quota " +
                          std::to_string(ctx.limits.queue_quota) + "); wait for verdicts");
  }
  bool existing = false;
  auto inserted = repo.insert(rec, &existing);
  if (!inserted) return send_failure(res, inserted.error());
  ctx.pipeline.submitted(*inserted);
  res.set_header("Location", "/v1/candidates/" + inserted->id);
  send_json(res, 202, {{"id", inserted->id}, {"parent", id}, {"state", "queued"}, {"links", candidate_links(inserted->id)}});
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
