#pragma once
// The httplib::Stream a request worker hands to cpp-httplib: reads come from the request bytes
// the connection gate already holds in memory (so a worker never waits on a slow client), writes
// go to the socket with a deadline per write.
#include <httplib.h>

#include <chrono>
#include <string>
#include <string_view>

namespace kwb::api {

struct Peer {
  std::string ip, local_ip;
  int port = 0, local_port = 0;
};

class RequestStream : public httplib::Stream {
 public:
  RequestStream(int fd, std::string_view request, const Peer& peer, std::chrono::milliseconds write_timeout)
      : m_fd(fd), m_in(request), m_peer(peer), m_write_timeout(write_timeout) {}

  bool is_readable() const override { return !m_in.empty(); }
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override;
  bool write_failed() const { return m_write_failed; }

 private:
  int m_fd;
  std::string_view m_in;
  const Peer& m_peer;
  std::chrono::milliseconds m_write_timeout;
  bool m_write_failed = false;
};

}  // namespace kwb::api
