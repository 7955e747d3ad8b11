#pragma once
// A small cpp-httplib server on 127.0.0.1 and a free port, for the client's tests: routes are set
// up before it listens, and it stops with the object (on every way out of a test).
#include <functional>
#include <string>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace kwb::test {

class LocalServer {
 public:
  explicit LocalServer(const std::function<void(httplib::Server&)>& routes) {
    routes(m_server);
    m_port = m_server.bind_to_any_port("127.0.0.1");
    // The socket listens from here on: a request made before the accept loop runs waits in the
    // backlog, so clients need not wait for the thread.
    m_thread = std::thread([this] { m_server.listen_after_bind(); });
  }
  ~LocalServer() {
    while (!m_server.is_running()) std::this_thread::yield();
    m_server.stop();
    m_thread.join();
  }
  LocalServer(const LocalServer&) = delete;
  LocalServer& operator=(const LocalServer&) = delete;
  int port() const { return m_port; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }

 private:
  httplib::Server m_server;
  int m_port = -1;
  std::thread m_thread;
};

// A JSON error as the daemon sends it.
inline void send_error(httplib::Response& res, int status, const std::string& type, const std::string& message) {
  res.status = status;
  res.set_content(nlohmann::json{{"error", {{"type", type}, {"message", message}}}}.dump(), "application/json");
}

}  // namespace kwb::test
