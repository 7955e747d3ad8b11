// Requests on the workers of the connection gate (connection_gate.hpp): a complete request posted
// to the request or the stream pool, keep-alive requests served back to back on one worker, and
// what the workers hand back to the gate's thread.
#include "api/connection_gate.hpp"

#include <poll.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "api/connection_gate_bounds.hpp"
#include "api/gate_io.hpp"

namespace kwb::api {

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
      // Fair to others: no more than gate::k_max_in_a_row, and only while nobody waits for a worker.
      if (streaming || in_a_row >= gate::k_max_in_a_row || m_requests.queued() > 0 || !next_on_worker(*p))
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
// long-lived; anything else, or nothing within gate::k_linger, goes back to the gate with what was read.
bool ConnectionGate::next_on_worker(Conn& c) {
  if (m_stop) return false;
  if (c.buf.empty()) {
    pollfd p{c.fd, POLLIN, 0};
    if (::poll(&p, 1, int(gate::k_linger.count())) <= 0 || !(p.revents & POLLIN)) return false;
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
        c.deadline = gate::Clock::now() + m_limits.idle_timeout;
        watch(c, true);
        if (!c.buf.empty()) {  // a pipelined request is already here
          c.phase = Phase::head;
          c.deadline = gate::Clock::now() + m_limits.header_timeout;
          try_head(c);
        }
        break;
    }
  }
}

}  // namespace kwb::api
