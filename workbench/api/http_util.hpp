#pragma once
// Shared helpers of the HTTP routes: JSON responses, JSON errors {error:{type,message}}, and the
// authentication + rate-limit guard every route goes through.
#include <httplib.h>

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "api/context.hpp"

namespace kwb::api {

void send_json(httplib::Response& res, int status, const nlohmann::json& body);
void send_error(httplib::Response& res, int status, const std::string& type, const std::string& message);
// The one mapping of util::Error kinds to HTTP: storage_full -> 507 insufficient_storage,
// busy -> 503 busy (both with Retry-After), not_found -> 404, anything else -> 500 internal.
void send_failure(httplib::Response& res, const util::Error& e);
// Authenticates and rate-limits; on failure writes 401/403/429 and returns nullopt.
std::optional<Principal> guard(const httplib::Request& req, httplib::Response& res, ApiContext& ctx, Role min_role);
// An integer query parameter within [lo, hi]; writes a 400 naming it when malformed.
std::optional<int64_t> query_int(const httplib::Request& req, httplib::Response& res, const std::string& name,
                                 int64_t fallback, int64_t lo, int64_t hi);

}  // namespace kwb::api
