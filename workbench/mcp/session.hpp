#pragma once
// 2025-11-25 sessions: what an initialize handshake established (the negotiated revision, the
// client's capabilities, the log level). The stdio transport holds one for its process; the
// HTTP endpoint keeps them in a SessionStore under their Mcp-Session-Id.
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

namespace kwb::mcp {

// What initialize negotiated.
struct Handshake {
  std::string version;
  nlohmann::json client_capabilities = nlohmann::json::object();
};

// Shared by the requests of one session, which may run at once: the handshake is written once
// before the session is visible; the rest is atomic.
struct LegacySession {
  Handshake handshake;
  std::atomic<bool> handshaken{false};   // initialize answered (stdio: the process's one session)
  std::atomic<bool> initialized{false};  // notifications/initialized arrived
  std::atomic<int> log_level{1};         // index into debug, info, notice, ... emergency
  std::atomic<bool> log_enabled{false};  // logging/setLevel arrived: tool calls send log messages
};

// Sessions by id, bounded: past `max_sessions` the one used longest ago is dropped, and a
// session idle for `idle` expires (a client that comes back gets 404 and initializes again).
class SessionStore {
 public:
  explicit SessionStore(size_t max_sessions = 1024, std::chrono::seconds idle = std::chrono::hours(24))
      : m_max(max_sessions), m_idle(idle) {}
  // A new session; returns its id (32 hex digits from the kernel's CSPRNG).
  std::string create(Handshake h);
  // The session, or null when unknown, terminated or expired. The pointer stays valid while
  // the caller holds the shared_ptr, even if the session is ended meanwhile.
  std::shared_ptr<LegacySession> find(const std::string& id);
  bool end(const std::string& id);  // false when unknown
  size_t size() const;

 private:
  struct Slot {
    std::shared_ptr<LegacySession> session;
    std::chrono::steady_clock::time_point used;
  };
  size_t m_max;
  std::chrono::seconds m_idle;
  mutable std::mutex m_mutex;
  std::map<std::string, Slot> m_sessions;
};

}  // namespace kwb::mcp
