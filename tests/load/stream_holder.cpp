#include "stream_holder.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

namespace kwb::load {

StreamHolder::StreamHolder(std::string url, std::string token, std::string path, int count)
    : m_token(std::move(token)), m_path(std::move(path)), m_conns(size_t(count)) {
  auto p = url.find("://");
  std::string rest = p == std::string::npos ? url : url.substr(p + 3);
  auto colon = rest.rfind(':');
  m_host = colon == std::string::npos ? rest : rest.substr(0, colon);
  if (colon != std::string::npos) m_port = std::atoi(rest.c_str() + colon + 1);
  m_counts.requested = count;
}

StreamHolder::~StreamHolder() { stop(); }

bool StreamHolder::open(Conn& c) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (::getaddrinfo(m_host.c_str(), std::to_string(m_port).c_str(), &hints, &res) != 0 || !res) return false;
  int fd = ::socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, 0);
  bool ok = fd >= 0 && ::connect(fd, res->ai_addr, res->ai_addrlen) == 0;
  ::freeaddrinfo(res);
  if (!ok) {
    if (fd >= 0) ::close(fd);
    return false;
  }
  std::string req = "GET " + m_path + " HTTP/1.1\r\nHost: " + m_host + "\r\nAccept: text/event-stream\r\n";
  if (!m_token.empty()) req += "Authorization: Bearer " + m_token + "\r\n";
  req += "\r\n";
  if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) != ssize_t(req.size())) {
    ::close(fd);
    return false;
  }
  c.fd = fd;
  c.ok = false;
  c.buf.clear();
  return true;
}

void StreamHolder::close(Conn& c) {
  if (c.fd >= 0) ::close(c.fd);
  c.fd = -1;
}

void StreamHolder::start() {
  for (auto& c : m_conns)
    if (!open(c)) ++m_counts.failed;
  m_thread = std::thread([this] { loop(); });
}

void StreamHolder::loop() {
  std::vector<pollfd> fds;
  char buf[8192];
  while (!m_stop) {
    fds.clear();
    for (auto& c : m_conns) fds.push_back({c.fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), 100) < 0) continue;
    for (size_t i = 0; i < m_conns.size(); ++i) {
      Conn& c = m_conns[i];
      if (c.fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
      if (n <= 0) {  // closed by the server: open it again
        close(c);
        ++m_counts.reopened;
        if (!m_stop && !open(c)) ++m_counts.failed;
        continue;
      }
      c.buf.append(buf, size_t(n));
      if (!c.ok) {
        auto eol = c.buf.find("\r\n");
        if (eol == std::string::npos) continue;
        if (c.buf.compare(0, 12, "HTTP/1.1 200") != 0) {
          ++m_counts.failed;
          close(c);
          continue;
        }
        c.ok = true;
        m_established = ++m_counts.established;
      }
      // Count complete lines, keep the partial tail.
      size_t start = 0, nl;
      while ((nl = c.buf.find('\n', start)) != std::string::npos) {
        std::string_view line(c.buf.data() + start, nl - start);
        if (line.starts_with(": keep-alive")) ++m_counts.heartbeats;
        if (line.starts_with("event:")) ++m_counts.events;
        start = nl + 1;
      }
      c.buf.erase(0, start);
    }
  }
}

bool StreamHolder::wait_established(double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (m_established < int(m_conns.size()) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return m_established >= int(m_conns.size());
}

StreamCounts StreamHolder::stop() {
  m_stop = true;
  if (m_thread.joinable()) m_thread.join();
  m_counts.open_at_end = 0;
  for (auto& c : m_conns) {
    m_counts.open_at_end += c.fd >= 0 && c.ok;
    close(c);
  }
  return m_counts;
}

}  // namespace kwb::load
