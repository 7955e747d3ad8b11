// The connection gate on its own, over real loopback sockets on a free port: complete requests
// reach the worker with their bodies, connections per address are capped, slow headers and bodies
// get 408, oversized bodies 413, a preflight refusal comes before any body is read, idle
// keep-alive connections are closed, event streams beyond their pool get 503, and every refusal
// is a JSON error that closes the connection. (tests/integration/test_http_limits.cpp drives the
// same gate inside `kwb serve`.)
#include <gtest/gtest.h>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "../../integration/raw_http.hpp"
#include "api/connection_gate.hpp"
#include "api/gate_io.hpp"

namespace {

using namespace kwb::api;
using namespace kwb::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Writes all of `data` to a non-blocking socket (the gate's), waiting for room with poll.
bool write_all(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n > 0) {
      off += size_t(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, 5000) <= 0) return false;
  }
  return true;
}

// What the worker saw of one request.
struct Served {
  std::string method, path, body, peer_ip;
};

// A gate on 127.0.0.1:<free port>, run on a thread of its own. Its worker answers 200 with
// "<method> <path> <body>"; a request for /block waits until release() first.
class Gate {
 public:
  explicit Gate(GateLimits limits, ConnectionGate::Preflight preflight = nullptr)
      : m_gate(limits, std::move(preflight), [this](const Exchange& ex) { return serve(ex); }) {
    std::string error;
    if (!m_gate.bind("127.0.0.1", 0, &error)) throw std::runtime_error(error);
    m_runner = std::thread([this] { m_gate.run(); });
  }
  ~Gate() {
    release();
    m_gate.stop();
    m_runner.join();
  }
  int port() const { return m_gate.port(); }
  void stop_and_join() {
    m_gate.stop();
    m_runner.join();
    m_runner = std::thread([] {});
  }
  std::vector<Served> served() {
    std::lock_guard lock(m_mutex);
    return m_served;
  }
  // Waits until a /block request is being served.
  bool wait_blocked(std::chrono::milliseconds timeout) {
    std::unique_lock lock(m_mutex);
    return m_cv.wait_for(lock, timeout, [&] { return m_blocked > 0; });
  }
  void release() {
    std::lock_guard lock(m_mutex);
    m_released = true;
    m_cv.notify_all();
  }

 private:
  bool serve(const Exchange& ex) {
    auto parsed = parse_request_head(ex.request.substr(0, ex.request.find("\r\n\r\n") + 4), HeadLimits{});
    const auto& head = std::get<RequestHead>(parsed);
    Served s{head.method, head.path, std::string(ex.request.substr(head.head_bytes)), ex.peer.ip};
    {
      std::unique_lock lock(m_mutex);
      m_served.push_back(s);
      if (head.path.ends_with("/block")) {
        ++m_blocked;
        m_cv.notify_all();
        m_cv.wait(lock, [&] { return m_released; });
      }
    }
    std::string body = s.method + " " + s.path + " " + s.body;
    write_all(ex.fd, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + std::to_string(body.size()) +
                         (ex.last ? "\r\nConnection: close" : "") + "\r\n\r\n" + body);
    return !ex.last;
  }

  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::vector<Served> m_served;
  int m_blocked = 0;
  bool m_released = false;
  ConnectionGate m_gate;
  std::thread m_runner;
};

std::string get(const std::string& path) { return "GET " + path + " HTTP/1.1\r\nHost: t\r\n\r\n"; }

// The JSON error's field, or "" when the body is not one.
std::string error_field(const RawResponse& r, const char* field) {
  auto j = r.json();
  if (!j.is_object() || !j.contains("error") || !j["error"].is_object()) return "";
  return j["error"].value(field, "");
}
std::string error_type(const RawResponse& r) { return error_field(r, "type"); }
std::string error_message(const RawResponse& r) { return error_field(r, "message"); }

// True when the peer closed `fd` (EOF or reset) within `timeout` without sending anything.
bool closed_silently(int fd, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, int(timeout.count())) <= 0) return false;
  char c;
  return ::recv(fd, &c, 1, 0) <= 0;
}

TEST(ConnectionGate, ServesCompleteRequestsWithTheirBodiesOnOneKeptConnection) {
  Gate gate(GateLimits{});
  int fd = connect_from("127.0.0.1", gate.port());
  ASSERT_GE(fd, 0);
  // The body arrives in a second write: the worker sees the request only once it is whole.
  ASSERT_TRUE(send_all(fd, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\nhello"));
  ASSERT_TRUE(send_all(fd, " world"));
  RawResponse first = read_response(fd, 10s);
  EXPECT_EQ(first.status, 200) << first.head;
  EXPECT_EQ(first.body, "POST /echo hello world");
  ASSERT_TRUE(send_all(fd, get("/second")));
  RawResponse second = read_response(fd, 10s);
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(second.body, "GET /second ");
  ::close(fd);
  auto served = gate.served();
  ASSERT_EQ(served.size(), 2u);
  EXPECT_EQ(served[0].body, "hello world");
  EXPECT_EQ(served[0].peer_ip, "127.0.0.1");
}

TEST(ConnectionGate, ConnectionsPerAddressAreCappedAndFreedWhenClosed) {
  GateLimits limits;
  limits.max_per_address = 2;
  Gate gate(limits);
  int held[2] = {connect_from("127.0.0.7", gate.port()), connect_from("127.0.0.7", gate.port())};
  ASSERT_GE(held[0], 0);
  ASSERT_GE(held[1], 0);
  // Accepted in order, so the third connection from the address is over the cap.
  RawResponse over = exchange("127.0.0.7", gate.port(), get("/third"));
  EXPECT_EQ(over.status, 429) << over.head;
  EXPECT_EQ(error_type(over), "too_many_connections");
  EXPECT_NE(error_message(over).find("127.0.0.7"), std::string::npos) << error_message(over);
  EXPECT_NE(error_message(over).find("limit 2"), std::string::npos) << error_message(over);
  EXPECT_EQ(over.header("Retry-After"), "1");
  EXPECT_EQ(over.header("Connection"), "close");
  // Another address is not affected.
  RawResponse other = exchange("127.0.0.8", gate.port(), get("/other"));
  EXPECT_EQ(other.status, 200);
  // Once one of the held connections closes, the address may connect again.
  ::close(held[0]);
  RawResponse again;
  for (auto deadline = Clock::now() + 10s; Clock::now() < deadline && again.status != 200;)
    again = exchange("127.0.0.7", gate.port(), get("/again"), 2000ms);
  EXPECT_EQ(again.status, 200);
  ::close(held[1]);
  for (const auto& s : gate.served()) EXPECT_NE(s.path, "/third");
}

TEST(ConnectionGate, HeadersNotCompleteInTimeGet408) {
  GateLimits limits;
  limits.header_timeout = 300ms;
  Gate gate(limits);
  int fd = connect_from("127.0.0.1", gate.port());
  ASSERT_GE(fd, 0);
  auto t0 = Clock::now();
  ASSERT_TRUE(send_all(fd, "GET /slow HTTP/1.1\r\nHost: t\r\n"));  // no blank line: never complete
  RawResponse r = read_response(fd, 10s);
  auto waited = Clock::now() - t0;
  ::close(fd);
  EXPECT_EQ(r.status, 408) << r.head;
  EXPECT_EQ(error_type(r), "request_timeout");
  EXPECT_NE(error_message(r).find("headers not complete within 300 ms"), std::string::npos) << error_message(r);
  EXPECT_GE(waited, 300ms);
  EXPECT_TRUE(gate.served().empty());
}

TEST(ConnectionGate, BodyNotCompleteInTimeGets408) {
  GateLimits limits;
  limits.body_timeout = 300ms;
  Gate gate(limits);
  int fd = connect_from("127.0.0.1", gate.port());
  ASSERT_GE(fd, 0);
  auto t0 = Clock::now();
  ASSERT_TRUE(send_all(fd, "POST /slow HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n0123456789"));
  RawResponse r = read_response(fd, 10s);
  auto waited = Clock::now() - t0;
  ::close(fd);
  EXPECT_EQ(r.status, 408) << r.head;
  EXPECT_NE(error_message(r).find("body not complete within 300 ms"), std::string::npos) << error_message(r);
  EXPECT_GE(waited, 300ms);
  EXPECT_TRUE(gate.served().empty());
}

TEST(ConnectionGate, BodiesOverTheLimitGet413DeclaredOrChunked) {
  GateLimits limits;
  limits.head.max_body_bytes = 1024;
  Gate gate(limits);
  RawResponse declared =
      exchange("127.0.0.1", gate.port(), "POST /big HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n");
  EXPECT_EQ(declared.status, 413) << declared.head;
  EXPECT_EQ(error_type(declared), "too_large");
  // A chunked body has no declared length: the gate counts what arrives and stops at the limit.
  int fd = connect_from("127.0.0.1", gate.port());
  ASSERT_GE(fd, 0);
  size_t sent = 0;
  RawResponse chunked = stream_body(
      fd, "POST /big HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n", 64 << 10,
      [](size_t) { return "200\r\n" + std::string(0x200, 'x') + "\r\n"; }, sent, 10000ms);
  ::close(fd);
  EXPECT_EQ(chunked.status, 413) << chunked.head;
  EXPECT_NE(error_message(chunked).find("1024 bytes on the wire"), std::string::npos) << error_message(chunked);
  EXPECT_TRUE(gate.served().empty());
}

// A client that writes its whole body before it reads (Python's http.client, so urllib and the
// SDK) gets the refusal, not a reset: the gate reads the rest of an announced body past the limit
// and past what it drains of a body of unknown length, then closes cleanly.
TEST(ConnectionGate, AClientThatSendsItsWholeAnnouncedBodyFirstReadsTheRefusal) {
  const size_t body = size_t(16) << 20;  // 4 times what is drained of a body of unknown length
  auto no_token = [](const RequestHead& head, const std::string&) -> std::optional<Refusal> {
    if (head.authorization.empty()) return Refusal{401, "unauthorized", "no token", {}};
    return std::nullopt;
  };
  // 413: the head announces more than the limit; 401: the preflight refuses before the body.
  for (size_t limit : {size_t(1024), size_t(64) << 20}) {
    GateLimits limits;
    limits.head.max_body_bytes = limit;
    Gate gate(limits, no_token);
    int fd = connect_from("127.0.0.1", gate.port());
    ASSERT_GE(fd, 0);
    const std::string auth = limit == 1024 ? "Authorization: Bearer x\r\n" : "";
    ASSERT_TRUE(write_all(fd, "POST /submit HTTP/1.1\r\nHost: t\r\n" + auth + "Content-Length: " + std::to_string(body) +
                                  "\r\n\r\n" + std::string(body, 'x')))
        << "the gate stopped reading before the end of the announced body";
    RawResponse r = read_response(fd, 10s);
    EXPECT_EQ(r.status, limit == 1024 ? 413 : 401) << r.head;
    EXPECT_EQ(r.header("Connection"), "close");
    EXPECT_TRUE(closed_silently(fd, 10s)) << "closed once the body was read";
    ::close(fd);
    EXPECT_TRUE(gate.served().empty());
  }
}

TEST(ConnectionGate, APreflightRefusalComesBeforeAnyBodyIsRead) {
  std::mutex m;
  std::vector<std::string> asked;  // "<path> from <ip>"
  Gate gate(GateLimits{}, [&](const RequestHead& head, const std::string& ip) -> std::optional<Refusal> {
    {
      std::lock_guard lock(m);
      asked.push_back(head.path + " from " + ip);
    }
    if (head.authorization.empty()) return Refusal{401, "unauthorized", "no token", {}};
    return std::nullopt;
  });
  // Headers only, announcing a body the client never sends: the refusal comes regardless.
  int fd = connect_from("127.0.0.1", gate.port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(send_all(fd, "POST /submit HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n"));
  RawResponse refused = read_response(fd, 10s);
  ::close(fd);
  EXPECT_EQ(refused.status, 401) << refused.head;
  EXPECT_EQ(error_type(refused), "unauthorized");
  RawResponse allowed = exchange("127.0.0.1", gate.port(),
                                 "POST /submit HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer x\r\nContent-Length: 2\r\n\r\nok");
  EXPECT_EQ(allowed.status, 200);
  EXPECT_EQ(allowed.body, "POST /submit ok");
  std::lock_guard lock(m);
  EXPECT_EQ(asked, (std::vector<std::string>{"/submit from 127.0.0.1", "/submit from 127.0.0.1"}));
  ASSERT_EQ(gate.served().size(), 1u);  // only the authorised one reached the worker
}

TEST(ConnectionGate, IdleKeepAliveConnectionsAreClosed) {
  GateLimits limits;
  limits.idle_timeout = 200ms;
  Gate gate(limits);
  int fd = connect_from("127.0.0.1", gate.port());
  ASSERT_GE(fd, 0);
  auto t0 = Clock::now();
  EXPECT_TRUE(closed_silently(fd, 10s));
  EXPECT_GE(Clock::now() - t0, 200ms);
  ::close(fd);
}

TEST(ConnectionGate, StreamsBeyondTheirPoolGet503WhileOrdinaryRequestsAreServed) {
  GateLimits limits;
  limits.max_streams = 1;
  Gate gate(limits);
  int stream = connect_from("127.0.0.1", gate.port());
  ASSERT_GE(stream, 0);
  ASSERT_TRUE(send_all(stream, get("/v1/candidates/c-0123456789abcdef/block?wait=30")));
  ASSERT_TRUE(gate.wait_blocked(10s));  // the one stream worker is busy
  RawResponse second = exchange("127.0.0.1", gate.port(), get("/v1/candidates/c-0123456789abcdef/events"));
  EXPECT_EQ(second.status, 503) << second.head;
  EXPECT_EQ(error_type(second), "too_many_streams");
  EXPECT_EQ(exchange("127.0.0.1", gate.port(), get("/v1/health")).status, 200);
  gate.release();
  EXPECT_EQ(read_response(stream, 10s).status, 200);
  ::close(stream);
}

TEST(ConnectionGate, StopEndsRunAndClosesIdleConnections) {
  Gate gate(GateLimits{});
  int fd = connect_from("127.0.0.1", gate.port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(send_all(fd, get("/before")));
  EXPECT_EQ(read_response(fd, 10s).status, 200);  // now idle on a kept connection
  auto stopped = std::async(std::launch::async, [&] { gate.stop_and_join(); });
  ASSERT_EQ(stopped.wait_for(20s), std::future_status::ready);
  EXPECT_TRUE(closed_silently(fd, 10s));
  ::close(fd);
}

TEST(RefusalBytes, AreAJsonErrorWithItsHeadersThatClosesTheConnection) {
  std::string bytes = refusal_bytes(Refusal{429, "too_many_connections", "slow down \xff", {{"Retry-After", "1"}}});
  RawResponse r;
  ASSERT_TRUE(parse_response(bytes, r)) << bytes;
  EXPECT_EQ(bytes.rfind("HTTP/1.1 429 Too Many Requests\r\n", 0), 0u) << bytes;
  EXPECT_EQ(r.header("Retry-After"), "1");
  EXPECT_EQ(r.header("Content-Type"), "application/json");
  EXPECT_EQ(r.header("Connection"), "close");
  EXPECT_EQ(r.header("Content-Length"), std::to_string(r.body.size()));
  EXPECT_EQ(bytes.size(), r.head.size() + 2 + r.body.size());  // nothing after the body
  auto j = r.json();
  ASSERT_TRUE(j.is_object()) << r.body;
  EXPECT_EQ(j["error"]["type"], "too_many_connections");
  EXPECT_EQ(j["error"]["message"].get<std::string>().rfind("slow down ", 0), 0u);  // bad UTF-8 replaced, not thrown
  EXPECT_EQ(refusal_bytes(Refusal{408, "request_timeout", "late", {}}).rfind("HTTP/1.1 408 Request Timeout\r\n", 0), 0u);
}

}  // namespace
