// A refusal at the connection gate (connection_gate.hpp): the JSON error with Connection: close,
// then what the client still sends read and discarded, bounded in bytes and time
// (connection_gate_bounds.hpp), so that the client reads the answer rather than a reset.
#include "api/connection_gate.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "api/connection_gate_bounds.hpp"
#include "api/gate_io.hpp"

namespace kwb::api {

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
  c.drain_left = body_left ? std::optional<uint64_t>(std::min(*body_left, gate::k_drain_announced)) : std::nullopt;
  if (c.drain_left && *c.drain_left == 0) return close_conn(c);  // nothing more is coming
  c.drain_until = gate::Clock::now() + gate::k_drain_time;
  c.deadline = gate::Clock::now() + gate::k_drain_idle;
  watch(c, true);
}

void ConnectionGate::discard_some(Conn& c) {
  char sink[16 << 10];
  while (true) {
    size_t want = c.drain_left ? size_t(std::min<uint64_t>(sizeof sink, *c.drain_left)) : sizeof sink;
    ssize_t n = ::recv(c.fd, sink, want, 0);
    if (n > 0) {
      c.drained += size_t(n);
      if (c.drain_left && (*c.drain_left -= uint64_t(n)) == 0) return close_conn(c);  // all of it: a clean close
      if (!c.drain_left && c.drained > gate::k_drain_bytes) return close_conn(c);
      c.deadline = std::min(gate::Clock::now() + gate::k_drain_idle, c.drain_until);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return close_conn(c);
    return;
  }
}

}  // namespace kwb::api
