#pragma once
// Shared helpers of the HTTP routes: JSON responses, JSON errors {error:{type,message}}, and the
// authentication + rate-limit guard every route goes through.
#include <httplib.h>

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "api/context.hpp"
#include "api/request_head.hpp"
#include "exec/refusal.hpp"

namespace kwb::api {

void send_json(httplib::Response& res, int status, const nlohmann::json& body);
void send_error(httplib::Response& res, int status, const std::string& type, const std::string& message);
// 429 too_many_failed_logins with Retry-After.
void send_login_throttled(httplib::Response& res, const std::string& address, int retry_after_s);
// The one mapping of util::Error kinds to HTTP: storage_full -> 507 insufficient_storage,
// busy -> 503 busy (both with Retry-After), not_found -> 404, anything else -> 500 internal.
void send_failure(httplib::Response& res, const util::Error& e);
// The intake's refusal as its HTTP answer (the one place RefusalCode becomes a status).
void send_refusal(httplib::Response& res, const exec::Refusal& r);
// The same mapping as a Refusal, for the connection gate's answers before a route runs.
Refusal refusal_of(const util::Error& e);
// Authenticates and rate-limits; on failure writes 401/403/429 (or send_failure's answer when the
// token could not be looked up) and returns nullopt.
std::optional<Principal> guard(const httplib::Request& req, httplib::Response& res, ApiContext& ctx, Role min_role);
// The name of the token that guard() let through for this thread's current request, for the
// request log line (api/server.cpp); "" before guard or after a refusal.
void note_principal(std::string name);
std::string noted_principal();
// A decimal integer, the whole of `s` (no blanks, no '+', no exponent), within int64.
std::optional<int64_t> parse_int64(std::string_view s);
// An integer query parameter within [lo, hi]; writes a 400 naming it when malformed.
std::optional<int64_t> query_int(const httplib::Request& req, httplib::Response& res, const std::string& name,
                                 int64_t fallback, int64_t lo, int64_t hi);
// A filter's query parameter: nullopt-of-string when absent; a value outside `valid` writes a 400
// bad_parameter naming the valid ones and sets `refused`.
std::optional<std::string> query_choice(const httplib::Request& req, httplib::Response& res, const std::string& name,
                                        const std::vector<std::string>& valid, bool& refused);
// False (400 bad_parameter, naming the known ones) when the request has a query parameter not in `known`.
bool only_known_params(const httplib::Request& req, httplib::Response& res, const std::vector<std::string>& known);

}  // namespace kwb::api
