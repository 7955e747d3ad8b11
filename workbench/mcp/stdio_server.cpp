#include "mcp/stdio_server.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kwb::mcp {

namespace {

class Writer {
 public:
  explicit Writer(int fd) : m_fd(fd) {}
  void send(const json& message) {
    std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    std::lock_guard lock(m_mutex);
    for (size_t off = 0; off < line.size();) {
      ssize_t n = ::write(m_fd, line.data() + off, line.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // the client closed stdout: nothing more can be said
      off += size_t(n);
    }
  }

 private:
  int m_fd;
  std::mutex m_mutex;
};

// Requests in flight, by JSON-RPC id, for notifications/cancelled and the shutdown.
class Running {
 public:
  explicit Running(size_t max) : m_max(max) {}
  std::shared_ptr<std::atomic<bool>> start(const std::string& key) {
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [&] { return m_flags.size() < m_max; });
    auto f = std::make_shared<std::atomic<bool>>(false);
    m_flags.emplace(key, f);
    return f;
  }
  void finish(const std::string& key, const std::shared_ptr<std::atomic<bool>>& f) {
    std::lock_guard lock(m_mutex);
    for (auto it = m_flags.lower_bound(key); it != m_flags.end() && it->first == key; ++it)
      if (it->second == f) {
        m_flags.erase(it);
        break;
      }
    m_cv.notify_all();
  }
  void cancel(const std::string& key) {
    std::lock_guard lock(m_mutex);
    for (auto it = m_flags.lower_bound(key); it != m_flags.end() && it->first == key; ++it) *it->second = true;
  }
  // Lets what runs finish within `grace` (their answers are still written), then cancels the
  // rest and waits for them to stop.
  void drain(std::chrono::milliseconds grace) {
    std::unique_lock lock(m_mutex);
    if (m_cv.wait_for(lock, grace, [&] { return m_flags.empty(); })) return;
    for (auto& [_, f] : m_flags) *f = true;
    m_cv.wait(lock, [&] { return m_flags.empty(); });
  }

 private:
  size_t m_max;
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::multimap<std::string, std::shared_ptr<std::atomic<bool>>> m_flags;
};

class StdioSession {
 public:
  StdioSession(const std::function<std::unique_ptr<Rest>()>& make_rest, const StdioOptions& opt)
      : m_make_rest(make_rest), m_out(opt.out_fd), m_running(opt.max_concurrent) {}

  void on_line(const std::string& line) {
    auto parsed = parse_message_text(line);
    if (auto* m = std::get_if<Malformed>(&parsed)) return m_out.send(make_error(m->id, m->error));
    Incoming msg = std::get<Incoming>(std::move(parsed));
    if (!msg.id) {
      if (msg.method == "notifications/initialized") m_session.initialized = true;
      if (msg.method == "notifications/cancelled" && msg.params.contains("requestId"))
        m_running.cancel(msg.params["requestId"].dump());
      return;  // other notifications and client responses need nothing
    }
    json id = *msg.id;
    const json meta = msg.params.value("_meta", json());
    RequestContext ctx;
    if (meta.is_object() && meta.contains(k_meta_version)) {
      ctx.era = Era::modern;
      auto checked = m_protocol.modern_meta(msg.params);
      if (auto* e = std::get_if<RpcError>(&checked)) return m_out.send(make_error(id, *e));
      ctx.version = std::get<ModernMeta>(checked).version;
      ctx.client_capabilities = std::get<ModernMeta>(checked).capabilities;
      ctx.log_level = std::get<ModernMeta>(checked).log_level;
    } else if (msg.method == "initialize") {
      if (m_session.handshaken)
        return m_out.send(make_error(id, {code::invalid_request, "initialize: this process's session is initialized already", {}}));
      json response = m_protocol.initialize(msg, &m_session.handshake);
      if (!response.contains("error")) m_session.handshaken = true;
      return m_out.send(response);
    } else if (m_session.handshaken) {
      ctx.era = Era::legacy;
      ctx.version = m_session.handshake.version;
      ctx.client_capabilities = m_session.handshake.client_capabilities;
      ctx.session = &m_session;
      ctx.log_level = m_session.log_enabled ? m_session.log_level.load() : -1;
    } else {
      return m_out.send(make_error(
          id, {code::invalid_params,
               msg.method + ": params._meta." + k_meta_version + " is missing: send 2026-07-28 requests with _meta "
               "(protocolVersion, clientCapabilities), or initialize first for 2025-11-25",
               {}}));
    }
    std::string key = id.dump();
    auto flag = m_running.start(key);
    std::thread([this, msg = std::move(msg), ctx = std::move(ctx), key, flag]() mutable {
      auto rest = m_make_rest();
      ctx.rest = rest.get();
      ctx.cancelled = [flag] { return flag->load(); };
      ctx.notify = [this, flag](const json& n) {
        if (!flag->load()) m_out.send(n);
      };
      json response = m_protocol.call(msg, ctx);
      if (!flag->load()) m_out.send(response);  // a cancelled request gets no answer
      m_running.finish(key, flag);
    }).detach();
  }

  void shutdown(std::chrono::milliseconds grace) { m_running.drain(grace); }

  void too_long() { m_out.send(make_error(nullptr, {code::parse_error, "message longer than the line limit; skipped", {}})); }

 private:
  const std::function<std::unique_ptr<Rest>()>& m_make_rest;
  Protocol m_protocol;
  LegacySession m_session;
  Writer m_out;
  Running m_running;
};

}  // namespace

int serve_stdio(const std::function<std::unique_ptr<Rest>()>& make_rest, const StdioOptions& opt) {
  StdioSession session(make_rest, opt);
  std::string buf, line;
  bool skipping = false;
  char chunk[65536];
  while (true) {
    ssize_t n = ::read(opt.in_fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buf.append(chunk, size_t(n));
    size_t start = 0;
    for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1) {
      if (skipping) {
        skipping = false;
        continue;
      }
      line.assign(buf, start, nl - start);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t") != std::string::npos) session.on_line(line);
    }
    buf.erase(0, start);
    if (buf.size() > opt.max_line_bytes) {
      if (!skipping) session.too_long();
      skipping = true;
      buf.clear();
    }
  }
  session.shutdown(opt.drain_grace);
  return 0;
}

}  // namespace kwb::mcp
