// Reading a request at the connection gate (connection_gate.hpp): its head under a deadline and
// a size cap, the authentication before any body (preflight, on a worker), then its body, plain
// or chunked, up to the body limit.
#include "api/connection_gate.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include <spdlog/spdlog.h>

#include "api/connection_gate_bounds.hpp"
#include "api/gate_io.hpp"

namespace kwb::api {

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
        c.deadline = gate::Clock::now() + m_limits.header_timeout;
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
    case Phase::drain:
      return discard_some(c);
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
  c.deadline = gate::Clock::now() + m_limits.body_timeout;
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

}  // namespace kwb::api
