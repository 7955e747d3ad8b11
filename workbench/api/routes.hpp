#pragma once
#include <httplib.h>

#include "api/context.hpp"

namespace kwb::api {
void add_meta_routes(httplib::Server& svr, ApiContext& ctx);        // health, devices, openapi, metrics, tokens
void add_spec_routes(httplib::Server& svr, ApiContext& ctx);        // list, show and add specs
void add_candidate_routes(httplib::Server& svr, ApiContext& ctx);   // submit, get, list, cancel
void add_event_routes(httplib::Server& svr, ApiContext& ctx);       // SSE and long-poll
void add_library_routes(httplib::Server& svr, ApiContext& ctx);     // promote, reject, diff, leaderboard, library
void add_retime_routes(httplib::Server& svr, ApiContext& ctx);      // POST /v1/library/{op}/retime
class HttpDispatcher;
void add_mcp_routes(HttpDispatcher& svr, ApiContext& ctx);          // POST/GET/DELETE /mcp (docs/mcp.md)
}  // namespace kwb::api
