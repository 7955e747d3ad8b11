#include "api/request_stream.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace kwb::api {

bool RequestStream::is_writable() const {
  if (m_write_failed) return false;
  pollfd p{m_fd, POLLOUT | POLLRDHUP, 0};
  int n = ::poll(&p, 1, int(m_write_timeout.count()));
  return n > 0 && (p.revents & POLLOUT) && !(p.revents & (POLLERR | POLLHUP | POLLRDHUP));
}

ssize_t RequestStream::read(char* ptr, size_t size) {
  size_t n = std::min(size, m_in.size());
  std::memcpy(ptr, m_in.data(), n);
  m_in.remove_prefix(n);
  return ssize_t(n);  // 0 at the end of the request: the gate knows where it ends
}

ssize_t RequestStream::write(const char* ptr, size_t size) {
  if (m_write_failed) return -1;
  auto deadline = std::chrono::steady_clock::now() + m_write_timeout;
  while (true) {
    ssize_t n = ::send(m_fd, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) break;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{m_fd, POLLOUT, 0};
    if (::poll(&p, 1, int(left.count())) <= 0 || (p.revents & (POLLERR | POLLHUP))) break;
  }
  m_write_failed = true;  // a client that does not read its response within the write timeout
  return -1;
}

void RequestStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  ip = m_peer.ip;
  port = m_peer.port;
}

void RequestStream::get_local_ip_and_port(std::string& ip, int& port) const {
  ip = m_peer.local_ip;
  port = m_peer.local_port;
}

// cpp-httplib answers 500 to a stream whose socket() is at or above FD_SETSIZE (a limit of its
// select() code, which this stream does not use): report a small number there, the real one
// below (it is only compared, never used for I/O, on the server side).
socket_t RequestStream::socket() const { return m_fd < FD_SETSIZE ? m_fd : 0; }

}  // namespace kwb::api
