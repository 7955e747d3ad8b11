#include "analysis/worker_pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "analysis/protocol.hpp"
#include "util/settings.hpp"

extern char** environ;

namespace kwb::analysis::detail {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {
constexpr size_t k_max_idle = 4;
constexpr size_t k_max_reply_bytes = 16u << 20;
}  // namespace

struct WorkerPool::Worker {
  pid_t pid = -1;
  int fd = -1;  // our end of a socketpair; the worker's stdin and stdout
  WorkerConfig config;

  ~Worker() {
    if (fd >= 0) ::close(fd);  // the worker reads EOF and exits
    if (pid > 0) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
      }
      worker_pool().reaped(pid);
    }
  }
};

struct WorkerPool::Exchange {
  enum class Result { ok, crashed, timed_out, failed } result = Result::failed;
  std::string reply;
  std::string detail;  // why, for crashed / failed
};

fs::path default_worker_path() {
  if (const char* env = std::getenv("KWB_ANALYZER"); env && *env) return env;
  fs::path dir = util::executable_dir();
  for (fs::path p : {dir / "kwb-analyzer", dir / ".." / "bin" / "kwb-analyzer"}) {
    std::error_code ec;
    if (fs::exists(p, ec)) return p.lexically_normal();
  }
  return dir / "kwb-analyzer";
}

WorkerPool& worker_pool() {
  static WorkerPool pool;
  return pool;
}

WorkerPool::~WorkerPool() {
  stop();
  if (!m_private_cache.empty()) {
    std::error_code ec;
    fs::remove_all(m_private_cache, ec);
  }
}

void WorkerPool::reaped(pid_t pid) {
  std::lock_guard lock(m_mutex);
  m_live.erase(pid);
}

bool WorkerPool::stopped() {
  std::lock_guard lock(m_mutex);
  return m_stopped;
}

void WorkerPool::stop() {
  std::vector<std::unique_ptr<Worker>> idle;
  {
    std::lock_guard lock(m_mutex);
    m_stopped = true;
    // Busy workers are their callers' to reap (their exchange sees the end at once); the signal
    // is sent under the lock, before any of them is reaped and its pid could be reused.
    for (pid_t pid : m_live) ::kill(pid, SIGKILL);
    idle.swap(m_idle);
  }
  idle.clear();  // reaped here
}

void WorkerPool::reset() {
  std::vector<std::unique_ptr<Worker>> idle;
  {
    std::lock_guard lock(m_mutex);
    idle.swap(m_idle);
  }
  idle.clear();  // outside the lock: each worker's end takes it (reaped)
}

EngineConfig WorkerPool::shared_engine_config(const EngineConfig& c) {
  EngineConfig out = c;
  if (out.cache_dir.empty()) {
    std::lock_guard lock(m_mutex);
    if (m_private_cache.empty()) {
      std::error_code ec;
      std::string tmpl = (fs::temp_directory_path(ec) / "kwb-analysis-XXXXXX").string();
      if (::mkdtemp(tmpl.data())) m_private_cache = tmpl;
    }
    out.cache_dir = m_private_cache;
  }
  return out;
}

util::Result<std::unique_ptr<WorkerPool::Worker>> WorkerPool::take(const WorkerConfig& config) {
  for (;;) {
    std::unique_ptr<Worker> w;
    {
      std::lock_guard lock(m_mutex);
      for (auto it = m_idle.begin(); it != m_idle.end(); ++it)
        if ((*it)->config.executable == config.executable && (*it)->config.engine == config.engine) {
          w = std::move(*it);
          m_idle.erase(it);
          break;
        }
    }
    if (!w) break;
    int status = 0;
    if (::waitpid(w->pid, &status, WNOHANG) == 0) return w;  // alive
    reaped(w->pid);
    w->pid = -1;  // it ended while idle: start another
  }
  if (stopped()) return util::fail(config.executable.string(), "not started: the daemon is stopping");
  std::error_code ec;
  if (!fs::exists(config.executable, ec))
    return util::fail(config.executable.string(), "not found (build the kwb-analyzer target or set KWB_ANALYZER)");
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return util::fail("socketpair", std::strerror(errno));
  EngineConfig engine = shared_engine_config(config.engine);
  std::vector<std::string> args = {config.executable.string(), "--cache-dir", engine.cache_dir.string()};
  if (!engine.libclang_path.empty()) args.insert(args.end(), {"--libclang", engine.libclang_path});
  if (!engine.cuda_path.empty()) args.insert(args.end(), {"--cuda-path", engine.cuda_path.string()});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
  posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
  posix_spawn_file_actions_addclosefrom_np(&fa, 3);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(sv[1]);
  if (rc != 0) {
    ::close(sv[0]);
    return util::fail(config.executable.string(), std::string("cannot start: ") + std::strerror(rc));
  }
  {
    std::lock_guard lock(m_mutex);
    m_live.insert(pid);
    if (m_stopped) ::kill(pid, SIGKILL);  // stop() came while it was being started
  }
  auto w = std::make_unique<Worker>();
  w->pid = pid;
  w->fd = sv[0];
  w->config = config;
  // The worker says it is ready before it is given any source: a worker that cannot start is the
  // installation's problem, not the candidate's.
  auto hello = exchange(*w, "", std::chrono::seconds(30));
  if (hello.result != Exchange::Result::ok || hello.reply.find("\"ready\"") == std::string::npos)
    return util::fail(config.executable.string(),
                      "did not start (" + (hello.detail.empty() ? std::string("no greeting") : hello.detail) + ")");
  return w;
}

void WorkerPool::give_back(std::unique_ptr<Worker> w) {
  {
    std::lock_guard lock(m_mutex);
    if (m_idle.size() < k_max_idle && !m_stopped) m_idle.push_back(std::move(w));
  }
  w.reset();  // one not kept ends outside the lock (reaped takes it)
}

WorkerPool::Exchange WorkerPool::exchange(Worker& w, const std::string& line, std::chrono::milliseconds timeout) {
  Exchange ex;
  auto deadline = Clock::now() + timeout;
  auto wait = [&](short events) {
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return 0;
      pollfd p{w.fd, events, 0};
      int n = ::poll(&p, 1, int(std::min<long long>(left, 1000)));
      if (n > 0) return 1;
      if (n < 0 && errno != EINTR) return -1;
    }
  };
  auto died = [&] {
    int status = 0;
    pid_t done = ::waitpid(w.pid, &status, 0);
    if (done > 0) reaped(w.pid);
    w.pid = -1;
    ex.result = Exchange::Result::crashed;
    if (done > 0 && WIFSIGNALED(status))
      ex.detail = fmt::format("signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (done > 0 && WIFEXITED(status))
      ex.detail = fmt::format("exit code {}", WEXITSTATUS(status));
    else
      ex.detail = "it ended";
  };
  size_t sent = 0;
  while (sent < line.size()) {
    int ready = wait(POLLOUT);
    if (ready == 0) {
      ex.result = Exchange::Result::timed_out;
      return ex;
    }
    ssize_t n = ready < 0 ? -1 : ::send(w.fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      died();
      return ex;
    }
    sent += size_t(n);
  }
  char buf[65536];
  for (;;) {
    int ready = wait(POLLIN);
    if (ready == 0) {
      ex.result = Exchange::Result::timed_out;
      return ex;
    }
    ssize_t n = ready < 0 ? -1 : ::recv(w.fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      died();
      return ex;
    }
    ex.reply.append(buf, size_t(n));
    if (auto nl = ex.reply.find('\n'); nl != std::string::npos) {
      ex.reply.resize(nl);
      ex.result = Exchange::Result::ok;
      return ex;
    }
    if (ex.reply.size() > k_max_reply_bytes) {
      ex.detail = "reply too large";
      return ex;
    }
  }
}

Report WorkerPool::run(const Request& request, const WorkerConfig& config, bool& cacheable) {
  cacheable = true;
  Report r;
  auto w = take(config);
  if (!w) {
    r.unavailable_reason = "static analysis skipped: analyzer worker " + w.error().what();
    cacheable = false;
    return r;
  }
  nlohmann::json msg = {{"kind", "analyze"}, {"request", request_to_json(request)}};
  std::string line = msg.dump() + "\n";
  auto timeout = request.timeout_ms > 0 ? std::chrono::milliseconds(request.timeout_ms) : config.timeout;
  auto ex = exchange(**w, line, timeout);
  if (ex.result == Exchange::Result::crashed && stopped()) {
    r.unavailable_reason = "static analysis skipped: the daemon is stopping";
    cacheable = false;
    return r;
  }
  if (ex.result == Exchange::Result::crashed) {
    // Blame the source only if a fresh worker crashes on it too.
    w = take(config);
    if (!w) {
      r.unavailable_reason = "static analysis skipped: analyzer worker " + w.error().what();
      cacheable = false;
      return r;
    }
    ex = exchange(**w, line, timeout);
  }
  struct { std::string file; } at{request.display_name};
  switch (ex.result) {
    case Exchange::Result::ok: {
      auto parsed = nlohmann::json::parse(ex.reply, nullptr, false);
      auto report = parsed.is_object() && parsed.contains("report") ? report_from_json(parsed["report"])
                                                                    : util::fail("analysis report", "malformed");
      if (!report) {
        r.unavailable_reason = "static analysis failed: " + report.error().what();
        cacheable = false;
        return r;  // the worker is dropped
      }
      give_back(std::move(*w));
      return *report;
    }
    case Exchange::Result::timed_out:
      cacheable = false;
      r.available = true;
      r.timed_out = true;
      r.findings.push_back(core::Diagnostic{
          at.file, 0, 0, "error",
          fmt::format("the analyzer did not finish within {} s on this source (deep template or constexpr "
                      "recursion, or a preprocessor expansion bomb?); simplify the code",
                      timeout.count() / 1000.0),
          "parse"});
      return r;
    case Exchange::Result::crashed:
      if (stopped()) {
        r.unavailable_reason = "static analysis skipped: the daemon is stopping";
        cacheable = false;
        return r;
      }
      r.available = true;
      r.findings.push_back(core::Diagnostic{
          at.file, 0, 0, "error",
          fmt::format("the analyzer's parser (libclang) crashed on this source ({}): deep nesting or a "
                      "preprocessor expansion bomb? simplify the code",
                      ex.detail),
          "parse"});
      return r;
    case Exchange::Result::failed:
      cacheable = false;
      r.unavailable_reason = "static analysis failed: analyzer worker: " + ex.detail;
      return r;
  }
  return r;
}

bool WorkerPool::warm_up(const std::string& backend, const WorkerConfig& config) {
  auto w = take(config);
  if (!w) return false;
  nlohmann::json msg = {{"kind", "warm_up"}, {"backend", backend}};
  auto ex = exchange(**w, msg.dump() + "\n", std::chrono::minutes(5));
  if (ex.result != Exchange::Result::ok) return false;
  auto parsed = nlohmann::json::parse(ex.reply, nullptr, false);
  bool warm = parsed.is_object() && parsed.value("warm", false);
  give_back(std::move(*w));
  return warm;
}

}  // namespace kwb::analysis::detail
