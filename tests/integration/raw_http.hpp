#pragma once
// Raw HTTP over sockets for tests that need what an HTTP client library hides: a chosen source
// address (127.0.0.0/8 is all loopback, so each test "client" can have an address of its own),
// slow or partial requests, malformed framing, and the daemon's memory from /proc.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kwb::test {

// A blocking TCP connection to 127.0.0.1:port from `source` (e.g. "127.0.0.7"); -1 on failure.
inline int connect_from(const std::string& source, int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in src{};
  src.sin_family = AF_INET;
  ::inet_pton(AF_INET, source.c_str(), &src.sin_addr);
  sockaddr_in dst{};
  dst.sin_family = AF_INET;
  dst.sin_port = htons(uint16_t(port));
  ::inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&dst), sizeof dst) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

inline bool send_all(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += size_t(n);
  }
  return true;
}

struct RawResponse {
  int status = 0;  // 0: no response (closed, reset or timed out)
  std::string head, body;
  nlohmann::json json() const { return nlohmann::json::parse(body, nullptr, false); }
  std::string header(const std::string& name) const {
    std::string lower = head;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    std::string key = "\r\n" + name + ":";
    std::transform(key.begin(), key.end(), key.begin(), ::tolower);
    size_t p = lower.find(key);
    if (p == std::string::npos) return "";
    size_t start = p + key.size(), end = head.find("\r\n", start);
    std::string v = head.substr(start, end - start);
    v.erase(0, v.find_first_not_of(' '));
    return v;
  }
};

// Parses one response (with Content-Length) from the front of `buf`; false while incomplete.
inline bool parse_response(const std::string& buf, RawResponse& r) {
  size_t end = buf.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  r.head = buf.substr(0, end + 2);
  r.status = std::atoi(buf.c_str() + 9);
  if (r.status == 100) {  // an interim 100 Continue: skip it
    std::string rest = buf.substr(end + 4);
    RawResponse next;
    if (!parse_response(rest, next)) return r.status = 0, false;
    r = next;
    return true;
  }
  std::string cl = r.header("Content-Length");
  size_t len = cl.empty() ? 0 : std::stoul(cl);
  if (buf.size() < end + 4 + len) return false;
  r.body = buf.substr(end + 4, len);
  return true;
}

// Reads one response within `timeout`.
inline RawResponse read_response(int fd, std::chrono::milliseconds timeout) {
  RawResponse r;
  std::string buf;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char chunk[8192];
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, int(left.count())) <= 0) break;
    ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) break;
    buf.append(chunk, size_t(n));
    if (parse_response(buf, r)) return r;
  }
  RawResponse none;
  parse_response(buf, none);
  return none;
}

// One request on a fresh connection from `source`; the response or status 0.
inline RawResponse exchange(const std::string& source, int port, const std::string& request,
                            std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
  int fd = connect_from(source, port);
  if (fd < 0) return {};
  RawResponse r;
  if (send_all(fd, request)) r = read_response(fd, timeout);
  ::close(fd);
  return r;
}

// Sends `head` then `body_bytes` of body in pieces made by `piece(i)`, reading meanwhile, and
// stops at the first response (or when the server stops reading). Returns the response and how
// many body bytes went out.
template <class Piece>
RawResponse stream_body(int fd, const std::string& head, size_t body_bytes, Piece piece, size_t& sent,
                        std::chrono::milliseconds timeout = std::chrono::milliseconds(30000)) {
  sent = 0;
  RawResponse r;
  if (!send_all(fd, head)) return r;
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  std::string out, in;
  size_t i = 0;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char chunk[8192];
  while (std::chrono::steady_clock::now() < deadline) {
    if (out.empty() && sent < body_bytes) out = piece(i++);
    pollfd p{fd, short(POLLIN | (out.empty() ? 0 : POLLOUT)), 0};
    if (::poll(&p, 1, 200) < 0) break;
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n > 0) {
        in.append(chunk, size_t(n));
        if (parse_response(in, r)) break;
        continue;
      }
      break;  // closed or reset
    }
    if (p.revents & POLLOUT) {
      ssize_t n = ::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
      if (n < 0 && errno != EAGAIN) break;
      if (n > 0) {
        sent += size_t(n);
        out.erase(0, size_t(n));
      }
    }
  }
  return r;
}

// A field of /proc/<pid>/status in KiB (VmRSS, VmHWM); -1 when unreadable.
inline long proc_status_kib(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0) return std::atol(line.c_str() + field.size() + 1);
  return -1;
}

// Resets the peak RSS (VmHWM) of `pid` to its current RSS (Linux >= 4.0); false if refused.
inline bool reset_peak_rss(pid_t pid) {
  std::ofstream out("/proc/" + std::to_string(pid) + "/clear_refs");
  out << "5";
  out.flush();
  return bool(out);
}

inline double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5));
  return v[i];
}

}  // namespace kwb::test
