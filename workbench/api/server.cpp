#include "api/server.hpp"

#include <sys/socket.h>

#include <spdlog/spdlog.h>

#include "api/http_util.hpp"
#include "api/routes.hpp"

namespace kwb::api {

Server::Server(ApiContext& ctx, int threads) : m_ctx(ctx), m_svr(std::make_unique<httplib::Server>()) {
  m_svr->new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };
  m_svr->set_payload_max_length(ctx.limits.max_body_bytes);
  m_svr->set_keep_alive_max_count(10000);
  m_svr->set_read_timeout(30, 0);
  // Headers and body go out in separate writes: without TCP_NODELAY, Nagle holds the body until
  // the client's delayed ACK (~40 ms per keep-alive request).
  m_svr->set_tcp_nodelay(true);
  // httplib's default socket options set SO_REUSEPORT, which lets a second `kwb serve` bind the
  // same port and silently take part of the connections: reuse the address only. The socket is
  // kept to raise its listen backlog after bind (Debian's libcpp-httplib listens with 5: a burst
  // of clients connecting at once overflowed it, waited 1 s for a SYN retry or got a reset).
  m_svr->set_socket_options([this](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    m_listen_fd = sock;
  });
  add_meta_routes(*m_svr, ctx);
  add_candidate_routes(*m_svr, ctx);
  add_event_routes(*m_svr, ctx);
  add_library_routes(*m_svr, ctx);
  add_retime_routes(*m_svr, ctx);
  // Unknown routes, 413 from the body limit, and anything else without a JSON body of its own.
  m_svr->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    switch (res.status) {
      case 404: return send_error(res, 404, "not_found", "no route " + req.method + " " + req.path);
      case 413: return send_error(res, 413, "too_large", "request body larger than the limit");
      case 405: return send_error(res, 405, "method_not_allowed", req.method + " is not allowed on " + req.path);
      default: return send_error(res, res.status, "http_error", "HTTP " + std::to_string(res.status));
    }
  });
  m_svr->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
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
}

Server::~Server() { stop(); }

bool Server::bind(const std::string& host, int port, std::string* error) {
  if (port == 0) {
    m_port = m_svr->bind_to_any_port(host);
    if (m_port <= 0) {
      if (error) *error = "cannot bind " + host + " to a free port";
      return false;
    }
  } else {
    if (!m_svr->bind_to_port(host, port)) {
      if (error) *error = "cannot bind " + host + ":" + std::to_string(port) + " (in use, or not an address of this host)";
      return false;
    }
    m_port = port;
  }
  if (m_listen_fd >= 0) ::listen(m_listen_fd, 1024);  // a larger backlog on the same socket
  return true;
}

void Server::run() { m_svr->listen_after_bind(); }

void Server::stop() {
  if (m_svr) m_svr->stop();
}

}  // namespace kwb::api
