// The connection gate's life (connection_gate.hpp): the listening socket, the epoll loop, accepting
// connections under the caps, deadlines swept, connections closed. Reading a request is
// connection_gate_reading.cpp, handing it to a worker connection_gate_workers.cpp, a refusal and
// the drain after it connection_gate_refusal.cpp.
#include "api/connection_gate.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <spdlog/spdlog.h>

#include "api/connection_gate_bounds.hpp"
#include "api/gate_io.hpp"

namespace kwb::api {

ConnectionGate::ConnectionGate(GateLimits limits, Preflight preflight, Serve serve)
    : m_limits(limits),
      m_preflight(std::move(preflight)),
      m_serve(std::move(serve)),
      m_requests(limits.request_threads, limits.max_queued),
      m_streams(limits.max_streams, 0) {
  // Every connection is a descriptor: raise the soft open-files limit to the hard one (as far as
  // the connection cap needs), and leave 256 for the database, sandboxes and logs.
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0) {
    rlim_t want = rlim_t(m_limits.max_connections + 256);
    if (files.rlim_cur != RLIM_INFINITY && files.rlim_cur < want) {
      files.rlim_cur = files.rlim_max == RLIM_INFINITY ? want : std::min(want, files.rlim_max);
      ::setrlimit(RLIMIT_NOFILE, &files);
      ::getrlimit(RLIMIT_NOFILE, &files);
    }
    if (files.rlim_cur != RLIM_INFINITY)
      m_limits.max_connections =
          std::min<size_t>(m_limits.max_connections, files.rlim_cur > 512 ? size_t(files.rlim_cur) - 256 : 256);
  }
  m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
  m_wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event ev{EPOLLIN, {}};
  ev.data.fd = m_wake;
  ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_wake, &ev);
}

ConnectionGate::~ConnectionGate() {
  stop();
  m_requests.shutdown();
  m_streams.shutdown();
  for (auto& [fd, c] : m_conns) ::close(fd);
  if (m_listen >= 0) ::close(m_listen);
  ::close(m_wake);
  ::close(m_epoll);
}

bool ConnectionGate::bind(const std::string& host, int port, std::string* error) {
  const int fd = listen_socket(host, port, error);
  if (fd < 0) return false;
  adopt(fd);
  return true;
}

void ConnectionGate::adopt(int listening_fd) {
  m_listen = listening_fd;
  m_port = peer_of(m_listen).local_port;
  epoll_event ev{EPOLLIN, {}};
  ev.data.fd = m_listen;
  ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_listen, &ev);
}

void ConnectionGate::stop() {
  m_stop = true;
  uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(m_wake, &one, sizeof one);
}

void ConnectionGate::run() {
  epoll_event events[256];
  auto last_sweep = gate::Clock::now();
  while (!m_stop) {
    int n = ::epoll_wait(m_epoll, events, 256, int(gate::k_sweep_every.count()));
    for (int i = 0; i < n && !m_stop; ++i) {
      int fd = events[i].data.fd;
      if (fd == m_listen) {
        accept_all();
      } else if (fd == m_wake) {
        uint64_t v;
        [[maybe_unused]] auto r = ::read(m_wake, &v, sizeof v);
        drain_returned();
      } else if (auto it = m_conns.find(fd); it != m_conns.end()) {
        on_readable(*it->second);
      }
    }
    if (gate::Clock::now() - last_sweep >= gate::k_sweep_every) {
      sweep();
      last_sweep = gate::Clock::now();
    }
  }
  // Stopping: no new connections; idle ones closed; requests in flight finish (bounded).
  ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, m_listen, nullptr);
  for (auto it = m_conns.begin(); it != m_conns.end();) {
    auto next = std::next(it);
    if (it->second->phase != Phase::busy && it->second->phase != Phase::preflight) close_conn(*it->second);
    it = next;
  }
  auto deadline = gate::Clock::now() + std::chrono::seconds(30);
  while (busy_count() > 0 && gate::Clock::now() < deadline) {
    epoll_event ev[16];
    ::epoll_wait(m_epoll, ev, 16, 50);
    uint64_t v;
    [[maybe_unused]] auto r = ::read(m_wake, &v, sizeof v);
    drain_returned();
  }
}

size_t ConnectionGate::busy_count() const {
  size_t n = 0;
  for (const auto& [fd, c] : m_conns) n += c->phase == Phase::busy || c->phase == Phase::preflight;
  return n;
}

void ConnectionGate::watch(Conn& c, bool on) {
  if (on == c.registered) return;
  if (on) {
    epoll_event ev{EPOLLIN | EPOLLRDHUP, {}};
    ev.data.fd = c.fd;
    ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, c.fd, &ev);
  } else {
    ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, c.fd, nullptr);
  }
  c.registered = on;
}

void ConnectionGate::accept_all() {
  while (true) {
    int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE) {
        // Out of descriptors: stop watching the listener until the next sweep (else epoll
        // reports it ready in a loop); new connections wait in the backlog meanwhile.
        spdlog::warn("http: out of file descriptors ({} connections open); pausing accept", m_conns.size());
        ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, m_listen, nullptr);
        m_accept_paused = true;
      }
      return;
    }
    int yes = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    auto conn = std::make_unique<Conn>();
    Conn& c = *conn;
    c.fd = fd;
    c.peer = peer_of(fd);
    c.deadline = gate::Clock::now() + m_limits.idle_timeout;
    m_conns[fd] = std::move(conn);
    size_t& from_here = m_per_address[c.peer.ip];
    std::optional<Refusal> no;
    if (m_conns.size() > m_limits.max_connections) {
      no = Refusal{503, "too_many_connections",
                   "the server has " + std::to_string(m_limits.max_connections) + " connections open; retry shortly",
                   {{"Retry-After", "1"}}};
    } else if (from_here >= m_limits.max_per_address) {
      no = Refusal{429, "too_many_connections",
                   "this address (" + c.peer.ip + ") has " + std::to_string(from_here) +
                       " connections open (limit " + std::to_string(m_limits.max_per_address) +
                       "); reuse keep-alive connections or close idle ones",
                   {{"Retry-After", "1"}}};
    }
    if (!no) {
      ++from_here;
      c.counted = true;
      watch(c, true);
      continue;
    }
    if (from_here == 0) m_per_address.erase(c.peer.ip);
    size_t draining = 0;
    for (const auto& [f, other] : m_conns) draining += other->phase == Phase::drain;
    if (draining < gate::k_max_draining) {
      reply(c, *no);
    } else {
      auto bytes = refusal_bytes(*no);
      [[maybe_unused]] auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      close_conn(c);
    }
  }
}

void ConnectionGate::close_conn(Conn& c) {
  watch(c, false);
  if (c.counted) {
    auto it = m_per_address.find(c.peer.ip);
    if (it != m_per_address.end() && --it->second == 0) m_per_address.erase(it);
  }
  int fd = c.fd;
  ::close(fd);
  m_conns.erase(fd);  // destroys c
}

void ConnectionGate::sweep() {
  auto now = gate::Clock::now();
  if (m_accept_paused && !m_stop) {
    epoll_event ev{EPOLLIN, {}};
    ev.data.fd = m_listen;
    ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_listen, &ev);
    m_accept_paused = false;
  }
  std::vector<Conn*> late;
  for (auto& [fd, c] : m_conns)
    if (c->deadline <= now && c->phase != Phase::busy && c->phase != Phase::preflight) late.push_back(c.get());
  for (Conn* c : late) {
    switch (c->phase) {
      case Phase::head:
        reply(*c, {408, "request_timeout",
                   "request headers not complete within " + std::to_string(m_limits.header_timeout.count()) + " ms"});
        break;
      case Phase::body:
        reply(*c, {408, "request_timeout",
                   "request body not complete within " + std::to_string(m_limits.body_timeout.count()) + " ms"});
        break;
      default: close_conn(*c); break;  // idle keep-alive, or done draining
    }
  }
}

}  // namespace kwb::api
