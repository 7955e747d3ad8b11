#pragma once
#include <httplib.h>

#include "api/context.hpp"
#include "api/router.hpp"

namespace kwb::api {
void add_meta_routes(Router& svr, ApiContext& ctx);        // health, devices, openapi, metrics, tokens
void add_spec_routes(Router& svr, ApiContext& ctx);        // list, show and add specs
void add_candidate_routes(Router& svr, ApiContext& ctx);   // submit, get, list, cancel
void add_artifact_routes(Router& svr, ApiContext& ctx);    // GET .../artifacts/{ptx,cubin,sass}
void add_event_routes(Router& svr, ApiContext& ctx);       // SSE and long-poll
void add_library_routes(Router& svr, ApiContext& ctx);     // promote, reject, diff, leaderboard, library
// GET /v1/library/report; before /v1/library/{op}, which would take "report" for an op.
void add_library_report_route(Router& svr, ApiContext& ctx);
void add_retime_routes(Router& svr, ApiContext& ctx);      // POST /v1/library/{op}/retime
void add_lineage_routes(Router& svr, ApiContext& ctx);     // GET /v1/candidates/{id}/lineage, /v1/attempts
class HttpDispatcher;
// POST/GET/DELETE /mcp (docs/mcp.md); its tools call the REST routes in-process through `dispatcher`.
void add_mcp_routes(Router& svr, ApiContext& ctx);
}  // namespace kwb::api
