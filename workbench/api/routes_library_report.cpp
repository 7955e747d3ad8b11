// GET /v1/library/report: the library's scorecard as last measured (docs/library.md "Scorecard"):
// the newest report `kwb library report --measure` stored in the workspace, with its age and
// devices, rows of an incumbent replaced since marked stale. The daemon does not time anything
// for it; where nothing was measured the report says so (source.kind "none").
#include "api/http_util.hpp"
#include "api/routes.hpp"
#include "library/scorecard_store.hpp"

namespace kwb::api {

namespace {

void library_report(const httplib::Request& req, httplib::Response& res, ApiContext& ctx) {
  if (!guard(req, res, ctx, Role::agent)) return;
  if (!ctx.curator) return send_error(res, 503, "no_library", "this daemon runs without a library (--library)");
  if (!only_known_params(req, res, {})) return;
  auto report = library::stored_report(library::reports_dir(ctx.db.file()), ctx.curator->repository());
  if (!report) return send_error(res, 500, "internal", report.error().what());
  send_json(res, 200, *report);
}

}  // namespace

void add_library_report_route(Router& svr, ApiContext& ctx) {
  svr.Get("/v1/library/report", [&ctx](const httplib::Request& q, httplib::Response& s) { library_report(q, s, ctx); });
}

}  // namespace kwb::api
