#include "api/gate_io.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

namespace kwb::api {

namespace {

const char* reason_phrase(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    case 507: return "Insufficient Storage";
    default: return "Error";
  }
}

}  // namespace

Peer peer_of(int fd) {
  Peer p;
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  char host[INET6_ADDRSTRLEN] = "";
  auto fill = [&](std::string& ip, int& port) {
    if (a.ss_family == AF_INET) {
      auto* v4 = reinterpret_cast<sockaddr_in*>(&a);
      ::inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
      port = ntohs(v4->sin_port);
    } else if (a.ss_family == AF_INET6) {
      auto* v6 = reinterpret_cast<sockaddr_in6*>(&a);
      ::inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
      port = ntohs(v6->sin6_port);
    }
    ip = host;
  };
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) fill(p.ip, p.port);
  len = sizeof a;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) fill(p.local_ip, p.local_port);
  return p;
}

// Renames an "Expect:" header in place (same length) once the gate has answered 100 Continue
// itself, so that the HTTP library does not send a second one into the response.
void neutralise_expect(std::string& buf, size_t head_bytes) {
  size_t pos = buf.find("\r\n") + 2;
  while (pos < head_bytes) {
    size_t end = buf.find("\r\n", pos);
    if (end - pos > 7 && ::strncasecmp(buf.data() + pos, "Expect:", 7) == 0) {
      buf.replace(pos, 6, "X-Expc");
      return;
    }
    pos = end + 2;
  }
}

std::string refusal_bytes(const Refusal& r) {
  std::string body = nlohmann::json{{"error", {{"type", r.type}, {"message", r.message}}}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + reason_phrase(r.status) + "\r\n";
  for (const auto& [k, v] : r.headers) out += k + ": " + v + "\r\n";
  out += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
  return out;
}

int listen_socket(const std::string& host, int port, std::string* error) {
  int listening = -1;
  addrinfo hints{}, *res = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  std::string where = host + ":" + std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res); rc != 0) {
    if (error) *error = "cannot resolve " + where + ": " + ::gai_strerror(rc);
    return -1;
  }
  std::string why = "no address";
  for (auto* ai = res; ai; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    // SO_REUSEADDR only: SO_REUSEPORT would let a second daemon share the port silently.
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, 1024) == 0) {
      listening = fd;
      break;
    }
    why = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(res);
  if (listening < 0) {
    if (error) *error = "cannot bind " + where + " (" + why + ": in use, or not an address of this host)";
    return -1;
  }
  return listening;
}

}  // namespace kwb::api
