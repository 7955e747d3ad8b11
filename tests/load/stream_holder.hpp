#pragma once
// Holds many Server-Sent Event streams open over raw sockets from one thread (poll), counting
// what arrives and reopening any the server closes.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace kwb::load {

struct StreamCounts {
  int requested = 0;
  int established = 0;   // got "HTTP/1.1 200" at least once
  int open_at_end = 0;
  int reopened = 0;      // closed by the server (or failed) and opened again
  int failed = 0;        // could not connect or got a non-200 status
  long heartbeats = 0;   // ": keep-alive" comment lines
  long events = 0;       // "event:" lines
};

class StreamHolder {
 public:
  // url: http://host:port; path: /v1/candidates/{id}/events
  StreamHolder(std::string url, std::string token, std::string path, int count);
  ~StreamHolder();
  void start();
  bool wait_established(double timeout_s);  // true once every stream got its 200
  StreamCounts stop();

 private:
  struct Conn {
    int fd = -1;
    bool ok = false;
    std::string buf;
  };
  bool open(Conn& c);
  void close(Conn& c);
  void loop();

  std::string m_host, m_token, m_path;
  int m_port = 80;
  std::vector<Conn> m_conns;
  std::atomic<bool> m_stop{false};
  std::atomic<int> m_established{0};
  StreamCounts m_counts;
  std::thread m_thread;
};

}  // namespace kwb::load
