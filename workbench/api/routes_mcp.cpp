// POST /mcp, GET /mcp, DELETE /mcp: the MCP endpoint (docs/mcp.md), Streamable HTTP. The
// protocol and its HTTP semantics are mcp::HttpEndpoint's; this adapts cpp-httplib to it and
// binds the tools to this daemon's own routes with the caller's token, called in process through
// the route table (api/mcp_rest.hpp).
// POST /mcp runs in the stream pool (api/request_head.cpp): a tool call may wait for a verdict.
#include <memory>

#include "api/http_util.hpp"
#include "api/mcp_rest.hpp"
#include "api/router.hpp"
#include "api/routes.hpp"
#include "mcp/http_endpoint.hpp"

namespace kwb::api {

namespace {

struct McpState {
  mcp::SessionStore sessions;
  mcp::HttpEndpoint endpoint{sessions};
};

void serve(const httplib::Request& req, httplib::Response& res, ApiContext& ctx,
           const std::shared_ptr<const RouteTable>& routes, McpState& state) {
  if (!guard(req, res, ctx, Role::agent)) return;  // 401 with WWW-Authenticate: Bearer, 429, as every route
  mcp::HttpIn in{req.method, [&req](const std::string& name) { return req.get_header_value(name); }, req.body};
  auto rest = std::make_shared<InProcessRest>(routes, req.get_header_value("Authorization"), req.remote_addr);
  mcp::HttpOut out = state.endpoint.handle(in, rest);
  res.status = out.status;
  for (const auto& [k, v] : out.headers) res.set_header(k, v);
  if (out.stream) {
    auto run = std::make_shared<decltype(out.stream)>(std::move(out.stream));
    res.set_chunked_content_provider(out.content_type, [run](size_t, httplib::DataSink& sink) {
      (*run)([&sink](const std::string& frame) { return sink.is_writable() && sink.write(frame.data(), frame.size()); });
      sink.done();
      return true;
    });
    return;
  }
  if (!out.content_type.empty()) res.set_content(out.body, out.content_type);
}

}  // namespace

void add_mcp_routes(Router& svr, ApiContext& ctx) {
  auto state = std::make_shared<McpState>();
  // A weak reference: the table holds this handler (a shared one would keep both alive forever).
  auto handler = [&ctx, routes = std::weak_ptr<const RouteTable>(svr.table()), state](const httplib::Request& q,
                                                                                     httplib::Response& s) {
    if (auto table = routes.lock()) serve(q, s, ctx, table, *state);
  };
  svr.Post("/mcp", handler);
  svr.Get("/mcp", handler);
  svr.Delete("/mcp", handler);
}

}  // namespace kwb::api
