#include "api/connection_gate.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <spdlog/spdlog.h>

#include "api/gate_io.hpp"

namespace kwb::api {

namespace {

using Clock = std::chrono::steady_clock;
// After a refusal the connection is closed once what the client still sends is read and
// discarded (docs/api.md "Limits"), so that an HTTP/1.1 client that writes its whole body before
// it reads (Python's http.client) reads the answer instead of a reset: the rest of a body
// announced with Content-Length, up to k_drain_announced bytes, then at once; otherwise (chunked,
// no complete head) up to k_drain_bytes until the client stops. A drain ends after k_drain_idle
// without a byte, and after k_drain_time in all.
constexpr size_t k_drain_bytes = 4 << 20;
constexpr uint64_t k_drain_announced = uint64_t(256) << 20;
constexpr std::chrono::milliseconds k_drain_idle{2000};
constexpr std::chrono::milliseconds k_drain_time{30000};
constexpr size_t k_max_draining = 256;                     // refusals at accept drain only while fewer
constexpr std::chrono::milliseconds k_sweep_every{100};
constexpr std::chrono::milliseconds k_linger{2};           // a worker waits this long for the next request
constexpr int k_max_in_a_row = 32;                         // requests of one connection on one worker

}  // namespace

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
  auto last_sweep = Clock::now();
  while (!m_stop) {
    int n = ::epoll_wait(m_epoll, events, 256, int(k_sweep_every.count()));
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
    if (Clock::now() - last_sweep >= k_sweep_every) {
      sweep();
      last_sweep = Clock::now();
    }
  }
  // Stopping: no new connections; idle ones closed; requests in flight finish (bounded).
  ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, m_listen, nullptr);
  for (auto it = m_conns.begin(); it != m_conns.end();) {
    auto next = std::next(it);
    if (it->second->phase != Phase::busy && it->second->phase != Phase::preflight) close_conn(*it->second);
    it = next;
  }
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (busy_count() > 0 && Clock::now() < deadline) {
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
    c.deadline = Clock::now() + m_limits.idle_timeout;
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
    if (draining < k_max_draining) {
      reply(c, *no);
    } else {
      auto bytes = refusal_bytes(*no);
      [[maybe_unused]] auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      close_conn(c);
    }
  }
}

bool ConnectionGate::read_some(Conn& c, size_t cap, bool& eof) {
  eof = false;
  char chunk[16 << 10];
  bool got = false;
  while (c.buf.size() < cap) {
    ssize_t n = ::recv(c.fd, chunk, std::min(sizeof chunk, cap - c.buf.size()), 0);
    if (n > 0) {
      c.buf.append(chunk, size_t(n));
      got = true;
      continue;
    }
    if (n == 0) eof = true;
    else if (errno == EINTR) continue;
    else if (errno != EAGAIN && errno != EWOULDBLOCK) eof = true;
    break;
  }
  return got;
}

void ConnectionGate::on_readable(Conn& c) {
  bool eof = false;
  switch (c.phase) {
    case Phase::idle:
    case Phase::head: {
      read_some(c, m_limits.head.max_header_bytes + 1 + (16 << 10), eof);
      if (c.phase == Phase::idle && !c.buf.empty()) {
        c.phase = Phase::head;
        c.deadline = Clock::now() + m_limits.header_timeout;
      }
      if (c.phase == Phase::head) try_head(c);
      if (eof && (c.phase == Phase::idle || c.phase == Phase::head)) close_conn(c);
      return;
    }
    case Phase::body:
      read_some(c, c.head->head_bytes + m_limits.head.max_body_bytes + 1, eof);
      check_body(c);
      if (eof && c.phase == Phase::body) close_conn(c);
      return;
    case Phase::drain: {
      char sink[16 << 10];
      while (true) {
        size_t want = c.drain_left ? size_t(std::min<uint64_t>(sizeof sink, *c.drain_left)) : sizeof sink;
        ssize_t n = ::recv(c.fd, sink, want, 0);
        if (n > 0) {
          c.drained += size_t(n);
          if (c.drain_left && (*c.drain_left -= uint64_t(n)) == 0) return close_conn(c);  // all of it: a clean close
          if (!c.drain_left && c.drained > k_drain_bytes) return close_conn(c);
          c.deadline = std::min(Clock::now() + k_drain_idle, c.drain_until);
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return close_conn(c);
        return;
      }
    }
    case Phase::preflight:
    case Phase::busy:
      return;  // not watched meanwhile
  }
}

void ConnectionGate::try_head(Conn& c) {
  // Blank lines before a request line are ignored (RFC 9112 2.2), e.g. a CRLF after a body.
  size_t blank = 0;
  while (c.buf.compare(blank, 2, "\r\n") == 0) blank += 2;
  if (blank > 0) {
    c.buf.erase(0, blank);
    c.searched = 0;
    if (c.buf.empty()) return;
  }
  auto end = find_head_end(c.buf, c.searched);
  if (!end) {
    c.searched = c.buf.size();
    if (c.buf.size() > m_limits.head.max_header_bytes)
      reply(c, {431, "header_too_large",
                "request line and headers larger than " + std::to_string(m_limits.head.max_header_bytes) + " bytes"});
    return;
  }
  auto parsed = parse_request_head(std::string_view(c.buf).substr(0, *end), m_limits.head);
  if (auto* no = std::get_if<Refusal>(&parsed)) {  // its body (if it announced one) still comes
    auto announced = announced_body_bytes(std::string_view(c.buf).substr(0, *end));
    const uint64_t here = c.buf.size() - *end;
    return reply(c, *no, announced ? std::optional<uint64_t>(*announced > here ? *announced - here : 0) : std::nullopt);
  }
  c.head = std::move(std::get<RequestHead>(parsed));
  if (!c.head->has_body()) {
    c.request_len = c.head->head_bytes;
    return dispatch(c);
  }
  if (!m_preflight) return start_body(c);
  // Authenticate (on a worker: it may query the database) before reading any of the body.
  c.phase = Phase::preflight;
  watch(c, false);
  Conn* p = &c;
  if (!m_requests.post([this, p] {
        std::optional<Refusal> no;
        try {
          no = m_preflight(*p->head, p->peer.ip);
        } catch (const std::exception& e) {  // no exception text in an answer: it goes to the log
          spdlog::error("http: the authentication of a request failed: {}", e.what());
          no = Refusal{500, "internal", "the request could not be authenticated (the daemon's log says why)"};
        }
        give_back(p, no ? Outcome::refused : Outcome::preflight_ok, no.value_or(Refusal{}));
      }))
    reply(c, {503, "server_busy", "every request worker is busy and the queue is full; retry shortly", {{"Retry-After", "1"}}});
}

void ConnectionGate::start_body(Conn& c) {
  if (c.head->expect_continue) {
    neutralise_expect(c.buf, c.head->head_bytes);
    static const std::string k_continue = "HTTP/1.1 100 Continue\r\n\r\n";
    [[maybe_unused]] auto n = ::send(c.fd, k_continue.data(), k_continue.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  }
  c.phase = Phase::body;
  c.deadline = Clock::now() + m_limits.body_timeout;
  watch(c, true);
  check_body(c);
}

void ConnectionGate::check_body(Conn& c) {
  const RequestHead& h = *c.head;
  std::string_view body = std::string_view(c.buf).substr(h.head_bytes);
  if (h.content_length) {
    if (body.size() < *h.content_length) return;
    c.request_len = h.head_bytes + size_t(*h.content_length);
    return dispatch(c);
  }
  auto state = c.chunks.scan(body);
  if (state == ChunkedScanner::State::bad) return reply(c, {400, "invalid_body", "chunked body: " + c.chunks.error()});
  if (state == ChunkedScanner::State::done && c.chunks.consumed() <= m_limits.head.max_body_bytes) {
    c.request_len = h.head_bytes + c.chunks.consumed();
    return dispatch(c);
  }
  if (body.size() > m_limits.head.max_body_bytes || c.chunks.consumed() > m_limits.head.max_body_bytes)
    reply(c, {413, "too_large",
              "request body larger than the limit (" + std::to_string(m_limits.head.max_body_bytes) +
                  " bytes on the wire, chunked or not)"});
}

void ConnectionGate::dispatch(Conn& c) {
  c.phase = Phase::busy;
  watch(c, false);
  bool streaming = is_long_lived(*c.head);
  Conn* p = &c;
  bool last = c.head->close || c.served + 1 >= m_limits.max_requests_per_connection || m_stop;
  auto job = [this, p, last, streaming]() mutable {
    for (int in_a_row = 1;; ++in_a_row) {
      bool keep = false;
      try {
        keep = m_serve(Exchange{p->fd, std::string_view(p->buf).substr(0, p->request_len), p->peer, last});
      } catch (const std::exception& e) {
        spdlog::error("http: request failed: {}", e.what());
      }
      if (!keep || last) return give_back(p, Outcome::close);
      consume(*p);
      // Fair to others: no more than k_max_in_a_row, and only while nobody waits for a worker.
      if (streaming || in_a_row >= k_max_in_a_row || m_requests.queued() > 0 || !next_on_worker(*p))
        return give_back(p, Outcome::keep);
      last = p->head->close || p->served + 1 >= m_limits.max_requests_per_connection || m_stop;
    }
  };
  if ((streaming ? m_streams : m_requests).post(job)) return;
  if (streaming)
    reply(c, {503, "too_many_streams",
              "the server already holds " + std::to_string(m_limits.max_streams) +
                  " event streams and long-polls (its limit); retry shortly, or poll without ?wait=",
              {{"Retry-After", "1"}}});
  else
    reply(c, {503, "server_busy", "every request worker is busy and the queue is full; retry shortly", {{"Retry-After", "1"}}});
}

void ConnectionGate::consume(Conn& c) {
  c.buf.erase(0, c.request_len);
  if (c.buf.capacity() > (64 << 10)) c.buf.shrink_to_fit();  // idle connections keep no large buffer
  c.head.reset();
  c.chunks = ChunkedScanner();
  c.searched = c.request_len = 0;
  ++c.served;
}

// On the request worker that just answered: a client sending requests back to back has its next
// one here within a moment; serve it on this worker instead of a hop through the gate and back
// (two thread switches per request). Only a complete request without a body that is not
// long-lived; anything else, or nothing within k_linger, goes back to the gate with what was read.
bool ConnectionGate::next_on_worker(Conn& c) {
  if (m_stop) return false;
  if (c.buf.empty()) {
    pollfd p{c.fd, POLLIN, 0};
    if (::poll(&p, 1, int(k_linger.count())) <= 0 || !(p.revents & POLLIN)) return false;
  }
  bool eof = false;
  read_some(c, m_limits.head.max_header_bytes + 1, eof);
  if (eof) return false;
  size_t blank = 0;
  while (c.buf.compare(blank, 2, "\r\n") == 0) blank += 2;
  c.buf.erase(0, blank);
  auto end = find_head_end(c.buf);
  if (!end) return false;
  auto parsed = parse_request_head(std::string_view(c.buf).substr(0, *end), m_limits.head);
  auto* head = std::get_if<RequestHead>(&parsed);
  if (!head || head->has_body() || is_long_lived(*head)) return false;
  c.head = std::move(*head);
  c.request_len = c.head->head_bytes;
  return true;
}

void ConnectionGate::give_back(Conn* c, Outcome o, Refusal r) {
  {
    std::lock_guard lock(m_returned_mutex);
    m_returned.push_back({c, o, std::move(r)});
  }
  uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(m_wake, &one, sizeof one);
}

void ConnectionGate::drain_returned() {
  std::vector<Returned> back;
  {
    std::lock_guard lock(m_returned_mutex);
    back.swap(m_returned);
  }
  for (auto& b : back) {
    Conn& c = *b.conn;
    switch (b.outcome) {
      case Outcome::close: close_conn(c); break;
      case Outcome::refused: reply(c, b.refusal); break;
      case Outcome::preflight_ok:
        if (m_stop) close_conn(c);
        else start_body(c);
        break;
      case Outcome::keep:
        if (m_stop) {
          close_conn(c);
          break;
        }
        c.head.reset();  // consumed by the worker; what it read of the next request stays in buf
        c.phase = Phase::idle;
        c.deadline = Clock::now() + m_limits.idle_timeout;
        watch(c, true);
        if (!c.buf.empty()) {  // a pipelined request is already here
          c.phase = Phase::head;
          c.deadline = Clock::now() + m_limits.header_timeout;
          try_head(c);
        }
        break;
    }
  }
}

void ConnectionGate::reply(Conn& c, const Refusal& r, std::optional<uint64_t> body_left) {
  // The part of a body announced with Content-Length that has not come yet.
  if (!body_left && c.head && c.head->content_length) {
    const uint64_t whole = c.head->head_bytes + *c.head->content_length;
    body_left = whole > c.buf.size() ? whole - c.buf.size() : 0;
  }
  auto bytes = refusal_bytes(r);  // Connection: close
  [[maybe_unused]] auto n = ::send(c.fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(c.fd, SHUT_WR);
  // Read and discard what the client still sends (bounded: k_drain_*), so that it reads the
  // answer rather than a reset; nothing of it is kept.
  c.buf.clear();
  c.buf.shrink_to_fit();
  c.phase = Phase::drain;
  c.drain_left = body_left ? std::optional<uint64_t>(std::min(*body_left, k_drain_announced)) : std::nullopt;
  if (c.drain_left && *c.drain_left == 0) return close_conn(c);  // nothing more is coming
  c.drain_until = Clock::now() + k_drain_time;
  c.deadline = Clock::now() + k_drain_idle;
  watch(c, true);
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
  auto now = Clock::now();
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
