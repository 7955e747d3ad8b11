#pragma once
// Streamable HTTP (docs/mcp.md "HTTP"): the MCP endpoint's HTTP semantics without an HTTP
// library, so that the daemon's route (api/routes_mcp.cpp) only adapts cpp-httplib to it.
//   POST: one JSON-RPC message. 2026-07-28 requests: MCP-Protocol-Version, Mcp-Method and
//         Mcp-Name must match the body (400 HeaderMismatch otherwise). 2025-11-25: initialize
//         opens a session (Mcp-Session-Id); later requests carry it (404 when unknown).
//         Answers application/json, or text/event-stream for a tools/call or tasks/result with a
//         progressToken or log messages asked for (the notifications, then the response).
//   GET: 405 (no server-initiated messages). DELETE: ends a 2025-11-25 session.
//   Host must be localhost or an IP address, and Origin, when present, a loopback origin or the
//   request's own (403 otherwise): DNS-rebinding protection.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "mcp/protocol.hpp"
#include "mcp/session.hpp"

namespace kwb::mcp {

struct HttpIn {
  std::string method;                                        // POST, GET, DELETE, ...
  std::function<std::string(const std::string&)> header;    // case-insensitive; "" when absent
  std::string body;
};

struct HttpOut {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string content_type;  // empty: no body
  std::string body;
  // Set for an event stream: runs the request and writes each SSE frame with `write`, which
  // returns false once the client is gone (the request is then cancelled).
  std::function<void(const std::function<bool(const std::string&)>& write)> stream;
};

class HttpEndpoint {
 public:
  explicit HttpEndpoint(SessionStore& sessions) : m_sessions(sessions) {}
  // Thread-safe; `rest` is the caller's REST API (its token), used while the answer runs — for
  // a stream, until `stream` returns.
  HttpOut handle(const HttpIn& in, std::shared_ptr<Rest> rest);

 private:
  HttpOut post(const HttpIn& in, std::shared_ptr<Rest> rest);
  HttpOut run(const HttpIn& in, const Incoming& msg, RequestContext ctx, std::shared_ptr<Rest> rest, const std::string& cancel_key);
  std::shared_ptr<std::atomic<bool>> track(const std::string& key);
  void untrack(const std::string& key);
  void cancel(const std::string& key);

  Protocol m_protocol;
  SessionStore& m_sessions;
  std::mutex m_mutex;
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> m_inflight;  // 2025-11-25 requests, for notifications/cancelled
};

// The Host and Origin rule alone (exposed for tests): true when the request may be served.
bool origin_allowed(const std::string& origin, const std::string& host);

}  // namespace kwb::mcp
