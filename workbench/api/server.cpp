#include "api/server.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "util/log.hpp"

#include "api/access.hpp"
#include "api/connection_gate.hpp"
#include "api/http_dispatcher.hpp"
#include "api/http_util.hpp"
#include "api/router.hpp"
#include "api/routes.hpp"

namespace kwb::api {

namespace {

// One info line per request (docs/api.md "Logs"): a request id (also the X-Request-Id response
// header), method, path, status, milliseconds, peer, the token's name and the candidate it is about.
// A stack: the MCP endpoint runs REST requests in-process, inside its own request, on its thread.
struct RequestFrame {
  std::chrono::steady_clock::time_point start;
  std::string principal;
};
thread_local std::vector<RequestFrame> t_requests;

std::string candidate_of(const httplib::Request& req, const httplib::Response& res) {
  static const std::string prefix = "/v1/candidates/";
  if (req.path.starts_with(prefix)) return req.path.substr(prefix.size(), req.path.find('/', prefix.size()) - prefix.size());
  if (req.method == "POST" && req.path == "/v1/candidates" && res.status < 300) {
    auto j = nlohmann::json::parse(res.body, nullptr, false);
    if (j.is_object() && j.contains("id") && j["id"].is_string()) return j["id"];
  }
  return "";
}

void add_request_log(HttpDispatcher& http) {
  static std::atomic<uint64_t> next{1};
  http.set_pre_routing_handler([](const httplib::Request&, httplib::Response& res) {
    if (t_requests.size() > 16) t_requests.clear();  // never more than the MCP nesting; a frame lost to an exception
    t_requests.push_back({std::chrono::steady_clock::now(), noted_principal()});
    note_principal("");
    res.set_header("X-Request-Id", "r-" + std::to_string(next.fetch_add(1)));
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_logger([](const httplib::Request& req, const httplib::Response& res) {
    RequestFrame frame{std::chrono::steady_clock::now(), ""};
    if (!t_requests.empty()) {
      frame = std::move(t_requests.back());
      t_requests.pop_back();
    }
    const std::string who = noted_principal();
    note_principal(frame.principal);  // the enclosing request's, if any
    if (!spdlog::should_log(spdlog::level::info)) return;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frame.start).count();
    nlohmann::ordered_json f = {{"request", res.get_header_value("X-Request-Id")}, {"method", req.method},
                                {"path", req.path}, {"status", res.status}, {"ms", std::round(ms * 10) / 10}};
    if (!req.remote_addr.empty()) f["peer"] = req.remote_addr;
    if (!who.empty()) f["token"] = who;
    if (auto id = candidate_of(req, res); !id.empty()) f["candidate"] = id;
    if (res.status >= 400) {
      auto j = nlohmann::json::parse(res.body, nullptr, false);
      if (j.is_object() && j.contains("error") && j["error"].is_object()) f["error"] = j["error"].value("type", "");
    }
    util::log_event(spdlog::level::info, "http", f);
  });
}

}  // namespace

Server::Server(ApiContext& ctx, const std::function<void(httplib::Server&)>& extra) : m_ctx(ctx), m_http(std::make_unique<HttpDispatcher>()) {
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
  add_artifact_routes(router, ctx);
  add_event_routes(router, ctx);
  add_library_routes(router, ctx);
  add_retime_routes(router, ctx);
  add_lineage_routes(router, ctx);
  add_mcp_routes(router, ctx);
  m_routes = router.routes();
  m_route_table = router.table();  // in-process requests (MCP tools) dispatch through it
  if (extra) extra(*m_http);
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
  add_request_log(*m_http);

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

void Server::adopt(int listening_fd) { m_gate->adopt(listening_fd); }

int Server::port() const { return m_gate->port(); }

void Server::run() { m_gate->run(); }

void Server::stop() {
  m_http->set_live(false);  // open event streams end
  m_gate->stop();
}

}  // namespace kwb::api
