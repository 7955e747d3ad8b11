#include "api/http_util.hpp"

#include "core/filters.hpp"

#include <charconv>

namespace kwb::api {

void send_json(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& type, const std::string& message) {
  send_json(res, status, {{"error", {{"type", type}, {"message", message}}}});
}

void send_login_throttled(httplib::Response& res, const std::string& address, int retry_after_s) {
  res.set_header("Retry-After", std::to_string(retry_after_s));
  send_error(res, 429, "too_many_failed_logins",
             "too many requests with an unknown or revoked token from " + address + "; retry after " +
                 std::to_string(retry_after_s) + " s");
}

Refusal refusal_of(const util::Error& e) {
  switch (e.kind) {
    case util::ErrorKind::storage_full: {
      std::string m = e.what();
      if (m.find("nothing was stored") == std::string::npos)
        m += ": no space left on the disk holding the workspace; nothing was stored. Free space there and retry";
      return {507, "insufficient_storage", m, {{"Retry-After", "30"}}};
    }
    case util::ErrorKind::busy: return {503, "busy", e.what(), {{"Retry-After", "1"}}};
    case util::ErrorKind::not_found: return {404, "not_found", e.what(), {}};
    case util::ErrorKind::generic: break;
  }
  return {500, "internal", e.what(), {}};
}

void send_failure(httplib::Response& res, const util::Error& e) {
  Refusal r = refusal_of(e);
  for (const auto& [name, value] : r.headers) res.set_header(name, value);
  send_error(res, r.status, r.type, r.message);
}

void send_refusal(httplib::Response& res, const exec::Refusal& r) {
  using C = exec::RefusalCode;
  if (r.retry_after_s > 0) res.set_header("Retry-After", std::to_string(r.retry_after_s));
  switch (r.code) {
    case C::invalid: return send_error(res, 400, r.type, r.message);
    case C::too_large: return send_error(res, 413, r.type, r.message);
    case C::unprocessable: return send_error(res, 422, r.type, r.message);
    case C::not_found: return send_error(res, 404, r.type, r.message);
    case C::quota: return send_error(res, 429, r.type, r.message);
    case C::store: return send_failure(res, r.store_error);
  }
  send_error(res, 500, "internal", r.message);
}

namespace {
thread_local std::string t_principal;
}

void note_principal(std::string name) { t_principal = std::move(name); }
std::string noted_principal() { return t_principal; }

std::optional<Principal> guard(const httplib::Request& req, httplib::Response& res, ApiContext& ctx, Role min_role) {
  auto checked = ctx.auth.check(req.get_header_value("Authorization"), req.remote_addr);
  if (checked.failure) {
    send_failure(res, *checked.failure);
    return std::nullopt;
  }
  if (checked.retry_after_s > 0) {
    send_login_throttled(res, req.remote_addr, checked.retry_after_s);
    return std::nullopt;
  }
  auto& who = checked.who;
  if (who) note_principal(who->name);
  if (!who) {
    res.set_header("WWW-Authenticate", "Bearer");
    send_error(res, 401, "unauthorized",
               unauthorized_message(req.get_header_value("Authorization"), /*body=*/false, ctx.auth.workspace()));
    return std::nullopt;
  }
  if (int wait = ctx.limiter.acquire(who->token_id); wait > 0) {
    res.set_header("Retry-After", std::to_string(wait));
    send_error(res, 429, "rate_limited", "too many requests for this token; retry after " + std::to_string(wait) + " s");
    return std::nullopt;
  }
  if (int(who->role) < int(min_role)) {
    send_error(res, 403, "forbidden",
               "this route needs the " + std::string(role_name(min_role)) + " role; the token has " +
                   std::string(role_name(who->role)));
    return std::nullopt;
  }
  return who;
}

std::optional<int64_t> parse_int64(std::string_view s) {
  int64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<int64_t> query_int(const httplib::Request& req, httplib::Response& res, const std::string& name,
                                 int64_t fallback, int64_t lo, int64_t hi) {
  if (!req.has_param(name)) return fallback;
  std::string v = req.get_param_value(name);
  auto out = parse_int64(v);
  if (!out || *out < lo || *out > hi) {
    send_error(res, 400, "bad_parameter",
               "query parameter '" + name + "': expected an integer in [" + std::to_string(lo) + ", " +
                   std::to_string(hi) + "], got \"" + v + "\"");
    return std::nullopt;
  }
  return *out;
}

std::optional<std::string> query_choice(const httplib::Request& req, httplib::Response& res, const std::string& name,
                                        const std::vector<std::string>& valid, bool& refused) {
  refused = false;
  if (!req.has_param(name)) return std::nullopt;
  std::string v = req.get_param_value(name);
  if (auto why = core::refuse_unknown(name, v, valid)) {
    send_error(res, 400, "bad_parameter", "query parameter '" + name + "': " + *why);
    refused = true;
    return std::nullopt;
  }
  return v;
}

bool only_known_params(const httplib::Request& req, httplib::Response& res, const std::vector<std::string>& known) {
  for (const auto& [name, value] : req.params)
    if (auto why = core::refuse_unknown("query parameter", name, known)) {
      send_error(res, 400, "bad_parameter", *why);
      return false;
    }
  return true;
}

}  // namespace kwb::api
