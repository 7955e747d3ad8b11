#pragma once
// The HTTP server of `kwb serve` (cpp-httplib): routes, body limits, JSON errors for every
// failure including unknown routes, a thread pool large enough for many open event streams.
#include <memory>
#include <string>

#include "api/context.hpp"

namespace httplib {
class Server;
}

namespace kwb::api {

class Server {
 public:
  explicit Server(ApiContext& ctx, int threads = 128);
  ~Server();
  // Binds host:port (port 0: any free port); false with a message when the bind fails.
  bool bind(const std::string& host, int port, std::string* error);
  int port() const { return m_port; }
  void run();   // serves until stop()
  void stop();

 private:
  ApiContext& m_ctx;
  std::unique_ptr<httplib::Server> m_svr;
  int m_port = 0;
  int m_listen_fd = -1;  // the listening socket (owned by httplib)
};

}  // namespace kwb::api
