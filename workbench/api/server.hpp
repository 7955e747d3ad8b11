#pragma once
// The HTTP server of `kwb serve`: a connection gate (api/connection_gate.hpp: accepts, reads
// each request under deadlines and size limits, authenticates before reading a body) in front
// of cpp-httplib's routing, which runs complete requests on a small pool (and event streams and
// long-polls on a pool of their own). JSON errors for every failure, unknown routes included.
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
  explicit Server(ApiContext& ctx);
  ~Server();
  // Binds host:port (port 0: any free port); false with a message when the bind fails.
  bool bind(const std::string& host, int port, std::string* error);
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
};

}  // namespace kwb::api
