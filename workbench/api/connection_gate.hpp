#pragma once
// The daemon's front door, in front of cpp-httplib (whose own server spends a thread per
// connection, so slow or idle clients could hold every thread). One thread accepts connections
// and, with epoll, reads each request's headers and body into memory under deadlines, without
// holding a worker: only a complete request reaches a worker, which runs it through httplib.
//
//   accept ── cap per address / in all ──> headers (deadline, size, checks) ──> [preflight:
//   authenticate before any body is read] ──> body (deadline, 1 MiB on the wire, chunked too)
//   ──> request pool, or the stream pool for SSE and ?wait= long-polls ──> keep-alive idle
//
// A refusal (401, 408, 413, 429, 431, 503, 507, ...) is answered with a JSON error and
// Connection: close, then the connection is closed after reading and discarding what the client
// still sends (the rest of an announced body, else a lingering close; bounded in bytes and time:
// connection_gate_refusal.cpp), so that the client reads the answer rather than a reset, also one that
// writes its whole body before reading (Python's http.client).
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/http_limits.hpp"
#include "api/request_head.hpp"
#include "api/request_stream.hpp"
#include "api/worker_pool.hpp"

namespace kwb::api {

// One complete request, as a worker sees it.
struct Exchange {
  int fd;
  std::string_view request;  // request line, headers and body
  const Peer& peer;
  bool last;                 // answer with Connection: close
};

class ConnectionGate {
 public:
  // Runs on a request worker before a body is read; a refusal is answered instead.
  using Preflight = std::function<std::optional<Refusal>(const RequestHead&, const std::string& peer_ip)>;
  // Runs a complete request on a worker; false: close the connection afterwards.
  using Serve = std::function<bool(const Exchange&)>;

  ConnectionGate(GateLimits limits, Preflight preflight, Serve serve);
  ~ConnectionGate();

  bool bind(const std::string& host, int port, std::string* error);
  // Takes a socket already listening (listen_socket(), gate_io.hpp), e.g. bound before a slow start-up.
  void adopt(int listening_fd);
  int port() const { return m_port; }
  int listen_fd() const { return m_listen; }
  void run();   // until stop(); waits for the requests in flight
  void stop();  // from any thread

 private:
  enum class Phase { idle, head, preflight, body, busy, drain };
  struct Conn {
    int fd = -1;
    Peer peer;
    std::string buf;
    Phase phase = Phase::idle;
    std::chrono::steady_clock::time_point deadline;
    std::optional<RequestHead> head;
    ChunkedScanner chunks;
    size_t searched = 0;     // of buf, for the end of the headers
    size_t request_len = 0;  // of buf, once complete
    size_t served = 0;
    size_t drained = 0;
    std::optional<uint64_t> drain_left;  // bytes of an announced body still to discard; none: unknown
    std::chrono::steady_clock::time_point drain_until;
    bool counted = false;    // in m_per_address
    bool registered = false; // in epoll
  };
  enum class Outcome { keep, close, preflight_ok, refused };
  struct Returned {
    Conn* conn;
    Outcome outcome;
    Refusal refusal;
  };

  void accept_all();
  void on_readable(Conn& c);
  bool read_some(Conn& c, size_t cap, bool& eof);
  void try_head(Conn& c);
  void start_body(Conn& c);
  void check_body(Conn& c);
  void dispatch(Conn& c);
  // body_left: what is still to come of a body whose head was refused; by default the rest of
  // the current request's announced body.
  void reply(Conn& c, const Refusal& r, std::optional<uint64_t> body_left = std::nullopt);
  void discard_some(Conn& c);  // Phase::drain: reads and drops what the client still sends
  void close_conn(Conn& c);
  void watch(Conn& c, bool on);
  void sweep();
  void drain_returned();
  void consume(Conn& c);          // the answered request's bytes and state
  bool next_on_worker(Conn& c);  // see connection_gate_workers.cpp
  void give_back(Conn* c, Outcome o, Refusal r = {});
  size_t busy_count() const;

  GateLimits m_limits;
  Preflight m_preflight;
  Serve m_serve;
  WorkerPool m_requests, m_streams;
  int m_listen = -1, m_epoll = -1, m_wake = -1, m_port = 0;
  std::atomic<bool> m_stop{false};
  bool m_accept_paused = false;
  std::unordered_map<int, std::unique_ptr<Conn>> m_conns;
  std::map<std::string, size_t> m_per_address;
  std::mutex m_returned_mutex;
  std::vector<Returned> m_returned;
};

}  // namespace kwb::api
