#pragma once
// The HTTP server of `kwb serve`: a connection gate (api/connection_gate.hpp: accepts, reads
// each request under deadlines and size limits, authenticates before reading a body) in front
// of cpp-httplib's routing, which runs complete requests on a small pool (and event streams and
// long-polls on a pool of their own). JSON errors for every failure, unknown routes included.
#include <functional>
#include <memory>
#include <string>

#include <vector>

#include "api/context.hpp"
#include "api/router.hpp"

namespace kwb::api {

class ConnectionGate;
class HttpDispatcher;

class Server {
 public:
  // `extra`: routes outside the JSON API (the review pages, web/pages.hpp), registered after the
  // API's and outside its route table (they are not part of /openapi.json).
  explicit Server(ApiContext& ctx, const std::function<void(httplib::Server&)>& extra = {});
  ~Server();
  // Binds host:port (port 0: any free port); false with a message when the bind fails.
  bool bind(const std::string& host, int port, std::string* error);
  // Serves on a socket bound and listening already (api::listen_socket in gate_io.hpp): `kwb
  // serve` binds first, so that a port in use fails before a workspace or token is created.
  void adopt(int listening_fd);
  int port() const;
  void run();   // serves until stop()
  void stop();  // from any thread (a signal handler thread)
  // Every route registered (method, OpenAPI path template), in registration order.
  const std::vector<RouteKey>& routes() const { return m_routes; }

 private:
  ApiContext& m_ctx;
  std::unique_ptr<HttpDispatcher> m_http;
  std::unique_ptr<ConnectionGate> m_gate;
  std::vector<RouteKey> m_routes;
  std::shared_ptr<const RouteTable> m_route_table;  // owned here: the MCP route holds it weakly
};

}  // namespace kwb::api
