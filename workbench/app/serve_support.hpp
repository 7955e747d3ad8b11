#pragma once
// What `kwb serve` needs around the daemon itself (serve_command.cpp): its start-up log, the
// signal handling that stops it, and the first admin token.
#include <signal.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include <spdlog/spdlog.h>

#include "store/database.hpp"
#include "util/log.hpp"

namespace kwb::app {

// Start-up progress (docs/api.md "Start-up"): what a slow first start is doing, and how long it
// took; JSON lines with --log-format json.
class StartupLog {
 public:
  explicit StartupLog(util::LogFormat format) : m_format(format) {}
  void say(const std::string& step, const std::string& text) {
    if (m_format == util::LogFormat::json) {
      util::log_event(spdlog::level::info, "startup", {{"step", step}, {"s", seconds(m_start)}, {"message", text}});
    } else {
      std::printf("kwb serve: %s\n", text.c_str());
      std::fflush(stdout);
    }
  }
  // Runs `f`, announcing it first when `announce` (a step that may take seconds) and saying how long it took.
  template <class F>
  auto timed(const std::string& step, const std::string& doing, bool announce, F&& f) {
    if (announce) say(step, doing + "...");
    const auto t0 = std::chrono::steady_clock::now();
    auto r = f();
    m_last = seconds(t0);
    return r;
  }
  double last_seconds() const { return m_last; }
  double since_start() const { return seconds(m_start); }

 private:
  static double seconds(std::chrono::steady_clock::time_point t0) {
    return std::round(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 10) / 10;
  }
  util::LogFormat m_format;
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
  double m_last = 0;
};

// "12.3 s"
std::string fixed1(double s);
// Now in UTC, ISO 8601 to the second.
std::string utc_now();

// Bootstrap: with auth on and no token at all, create an admin token once and keep it in
// <workspace>/admin.token (mode 0600) so the operator can create agent tokens.
void ensure_admin_token(store::Database& db, const std::filesystem::path& workspace, StartupLog& log);

// SIGINT/SIGTERM, blocked in every thread of the daemon and taken by one waiter: before the
// server runs they end the process at once (nothing is acknowledged yet; SQLite and the library
// are crash-safe), after it they stop the server, whose pipeline's in-flight work is resumed at
// the next start. Blocking them only once the server was built left the threads started before
// (analysis warm-up, reference builds, pipeline workers) to take a SIGTERM by its default action,
// so no stop ever ran its cleanup.
class StopSignal {
 public:
  StopSignal();
  ~StopSignal() { stopping(); }
  // The server has stopped: a further signal exits at once (its captures are being destroyed).
  void stopping() {
    std::lock_guard lock(m_state->mutex);
    m_state->stop = nullptr;
    m_state->ran = true;
  }
  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;
  // What a signal does once the server is built (its captures must outlive this object).
  void on_signal(std::function<void(int)> stop) {
    std::lock_guard lock(m_state->mutex);
    m_state->stop = std::move(stop);
  }

 private:
  struct State {
    sigset_t set;
    std::mutex mutex;
    std::function<void(int)> stop;
    bool ran = false;
  };
  std::shared_ptr<State> m_state;
};

}  // namespace kwb::app
