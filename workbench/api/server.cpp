#include "api/server.hpp"

#include <spdlog/spdlog.h>

#include "api/access.hpp"
#include "api/connection_gate.hpp"
#include "api/http_dispatcher.hpp"
#include "api/http_util.hpp"
#include "api/router.hpp"
#include "api/routes.hpp"

namespace kwb::api {

Server::Server(ApiContext& ctx) : m_ctx(ctx), m_http(std::make_unique<HttpDispatcher>()) {
  const GateLimits& g = ctx.limits.http;
  m_http->set_payload_max_length(ctx.limits.max_body_bytes);  // the gate has checked it already
  m_http->set_keep_alive_max_count(g.max_requests_per_connection);
  m_http->set_keep_alive_timeout(std::max<time_t>(1, g.idle_timeout.count() / 1000));
  // The route table: every route is registered here through the Router, by its OpenAPI path
  // template, and must be described in the table of api/openapi.cpp (tests/unit/api/test_routes.cpp
  // compares the two). A new group of routes is one more line here.
  Router router(*m_http);
  add_meta_routes(router, ctx);
  add_spec_routes(router, ctx);
  add_candidate_routes(router, ctx);
  add_event_routes(router, ctx);
  add_library_routes(router, ctx);
  add_retime_routes(router, ctx);
  add_mcp_routes(router, *m_http, ctx);
  m_routes = router.routes();
  // Unknown routes, and anything else without a JSON body of its own.
  m_http->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    switch (res.status) {
      case 404: return send_error(res, 404, "not_found", "no route " + req.method + " " + req.path);
      case 413: return send_error(res, 413, "too_large", "request body larger than the limit");
      case 405: return send_error(res, 405, "method_not_allowed", req.method + " is not allowed on " + req.path);
      case 400: return send_error(res, 400, "bad_request", "malformed request (request line, headers or body)");
      default: return send_error(res, res.status, "http_error", "HTTP " + std::to_string(res.status));
    }
  });
  m_http->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unexpected error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    spdlog::error("request failed: {}", what);
    send_error(res, 500, "internal", what);
  });
  m_http->set_live(true);

  GateLimits limits = g;
  limits.head.max_body_bytes = ctx.limits.max_body_bytes;
  ConnectionGate::Preflight preflight;
  if (ctx.auth.enabled())
    preflight = [&ctx](const RequestHead& head, const std::string& address) {
      return preflight_auth(ctx.auth, head, address);
    };
  auto write_timeout = limits.write_timeout;
  m_gate = std::make_unique<ConnectionGate>(limits, std::move(preflight), [this, write_timeout](const Exchange& x) {
    RequestStream strm(x.fd, x.request, x.peer, write_timeout);
    bool closed = false;
    bool ok = m_http->serve(strm, x.last, closed);
    return ok && !closed && !strm.write_failed();
  });
}

Server::~Server() { stop(); }

bool Server::bind(const std::string& host, int port, std::string* error) { return m_gate->bind(host, port, error); }

int Server::port() const { return m_gate->port(); }

void Server::run() { m_gate->run(); }

void Server::stop() {
  m_http->set_live(false);  // open event streams end
  m_gate->stop();
}

}  // namespace kwb::api
