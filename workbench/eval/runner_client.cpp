#include "eval/runner_client.hpp"

#include <chrono>

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "launcher/sandbox.hpp"
#include "protocol/protocol.hpp"

namespace kwb::eval {

class ReplyReader : public wire::LineReader {
 public:
  using wire::LineReader::LineReader;
};

namespace {

std::string signal_text(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (invalid memory access: out-of-bounds or null pointer)";
    case SIGBUS: return "SIGBUS (misaligned or truncated memory access)";
    case SIGFPE: return "SIGFPE (arithmetic fault such as integer division by zero)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGABRT: return "SIGABRT (abort: failed assertion or std::terminate)";
    case SIGKILL: return "SIGKILL";
    case SIGXCPU: return "SIGXCPU (CPU time limit)";
    case SIGXFSZ: return "SIGXFSZ (file size limit)";
    case SIGSYS: return "SIGSYS (forbidden system call)";
    default: return std::string("signal ") + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
}

// Kills a runner that ran out of time and returns a hint about why, when the sandbox saw one
// (the process limit was reached: a fork bomb spins until the deadline); the runner's output
// goes to `output`.
std::string kill_for_timeout(sandbox::Process& process, std::string& output) {
  process.kill();
  auto outcome = process.wait(std::chrono::milliseconds(5000));
  output = outcome.stderr_text + outcome.stdout_text;
  auto limit = sandbox::breach(outcome, "the candidate");
  if (limit.kind == sandbox::Breach::processes) return "; " + limit.reason;
  return limit.note.empty() ? "" : "; " + limit.note;
}

}  // namespace

util::Result<std::unique_ptr<RunnerSession>> RunnerSession::start(const RunnerConfig& cfg, const SharedArena& arena) {
  int cmd[2], reply[2];
  if (::pipe2(cmd, O_CLOEXEC) != 0) return util::fail("runner", std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(reply, O_CLOEXEC) != 0) {
    ::close(cmd[0]);
    ::close(cmd[1]);
    return util::fail("runner", std::string("pipe: ") + std::strerror(errno));
  }
  std::unique_ptr<RunnerSession> s(new RunnerSession());
  s->m_cfg = cfg;
  s->m_cmd_w = cmd[1];
  s->m_reply_r = reply[0];
  s->m_reader = std::make_unique<ReplyReader>(reply[0]);

  sandbox::Request req;
  req.bwrap = cfg.bwrap;
  req.job_dir = cfg.job_dir;
  req.binds.push_back({cfg.runner, "/kwb/kwb-runner", false});
  for (const auto& [host, inside] : cfg.binds) req.binds.push_back({host, inside, false});
  req.profile = sandbox::run_profile();
  req.profile.wall = std::chrono::hours(24);  // each command has its own deadline; wait() below
  req.profile.gpu = cfg.gpu;
  if (cfg.cpu_seconds > 0) req.profile.cpu_seconds = cfg.cpu_seconds;
  if (cfg.memory_bytes > 0) req.profile.memory_bytes = cfg.memory_bytes;
  // Without a memory cgroup the launcher falls back to RLIMIT_AS, which also counts the arena's
  // mapping (the arena's pages are charged to the trusted side, not to the runner's cgroup).
  if (!cfg.gpu) req.profile.address_space_bytes = int64_t(arena.size()) + req.profile.memory_bytes + (1ll << 30);
  req.profile.max_processes = std::max(req.profile.max_processes, cfg.threads + 32);
  req.env = {{"PATH", "/usr/bin"}, {"LANG", "C"}, {"OMP_NUM_THREADS", std::to_string(cfg.threads)}};
  req.inherit_fds = {cmd[0], reply[1], arena.fd()};
  req.argv = {"/kwb/kwb-runner", "--fds",
              std::to_string(cmd[0]) + "," + std::to_string(reply[1]) + "," + std::to_string(arena.fd())};
  auto proc = sandbox::spawn(req);
  ::close(cmd[0]);
  ::close(reply[1]);
  if (!proc) return std::unexpected(proc.error());
  s->m_process = std::move(*proc);
  ::signal(SIGPIPE, SIG_IGN);
  return s;
}

RunnerSession::~RunnerSession() {
  if (m_process) m_process->kill();
  if (m_cmd_w >= 0) ::close(m_cmd_w);
  if (m_reply_r >= 0) ::close(m_reply_r);
}

RunnerFailure RunnerSession::classify_exit(const char* what) {
  auto outcome = m_process->wait(std::chrono::milliseconds(2000));
  m_stderr = outcome.stderr_text + outcome.stdout_text;
  std::string tail = m_stderr.size() > 400 ? m_stderr.substr(m_stderr.size() - 400) : m_stderr;
  std::string note = tail.empty() ? "" : "; output: " + tail;
  auto limit = sandbox::breach(outcome, "the candidate");
  std::string during = std::string(" (during ") + what + ")";
  std::string hint = limit.note.empty() ? "" : "; " + limit.note;
  switch (limit.kind) {
    case sandbox::Breach::output: return {core::Status::output_limit, limit.reason + during};
    case sandbox::Breach::memory: return {core::Status::memory_limit, limit.reason + during + hint};
    case sandbox::Breach::forbidden_syscall: return {core::Status::sandbox_violation, limit.reason + during + hint + note};
    case sandbox::Breach::cpu_time: return {core::Status::time_limit, limit.reason + during};
    case sandbox::Breach::processes: hint = "; " + limit.reason; break;
    case sandbox::Breach::file_size:  // SIGXFSZ: named by signal_text below
    case sandbox::Breach::wall_time:  // the session has no wall limit of its own: it stopped answering
    case sandbox::Breach::none: break;
  }
  if (outcome.signal)
    return {core::Status::crashed, std::string("the candidate crashed during ") + what + ": " +
                                       signal_text(outcome.signal) + hint + note};
  return {core::Status::crashed, std::string("the runner exited with code ") + std::to_string(outcome.exit_code) +
                                     " during " + what + " (did the candidate call exit()?)" + hint + note};
}

RunnerResult<nlohmann::json> RunnerSession::request(const nlohmann::json& cmd, int timeout_ms, const char* what) {
  auto t0 = std::chrono::steady_clock::now();
  if (!wire::write_line(m_cmd_w, cmd)) return std::unexpected(classify_exit(what));
  nlohmann::json reply;
  auto status = m_reader->read(reply, timeout_ms);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  m_busy_ms += ms;
  const std::string op = cmd.value("op", std::string());
  m_busy_by_kind[op == "time" || op == "fetch" ? "timing" : op == "call" ? "calls" : "setup"] += ms;
  static const bool trace = std::getenv("KWB_RUNNER_TRACE") != nullptr;  // where the runner's time goes
  if (trace) std::fprintf(stderr, "kwb runner: %-8s %8.2f ms\n", op.c_str(), ms);
  switch (status) {
    case wire::LineReader::Status::ok: break;
    case wire::LineReader::Status::timeout:
      return std::unexpected(RunnerFailure{
          core::Status::time_limit, std::string(what) + " did not finish within " + std::to_string(timeout_ms) +
                                        " ms (endless loop, deadlock, or far too slow)" +
                                        kill_for_timeout(*m_process, m_stderr)});
    case wire::LineReader::Status::closed: return std::unexpected(classify_exit(what));
    case wire::LineReader::Status::too_long:
    case wire::LineReader::Status::bad_json:
      m_process->kill();
      return std::unexpected(RunnerFailure{core::Status::sandbox_violation,
                                           std::string("the runner's control channel was corrupted during ") +
                                               what + " (the candidate wrote to a descriptor it does not own)"});
  }
  if (!reply.is_object() || !reply.value("ok", false)) {
    std::string err = reply.is_object() ? reply.value("error", std::string("unknown error")) : "malformed reply";
    return std::unexpected(RunnerFailure{core::Status::error, err});
  }
  return reply;
}

RunnerResult<void> RunnerSession::load(const std::string& so_inside, const std::string& entry) {
  auto r = request({{"op", "load"}, {"so", so_inside}, {"entry", entry}}, m_cfg.command_timeout_ms, "loading");
  if (!r) {
    if (r.error().status == core::Status::error) r.error().status = core::Status::rejected;
    return std::unexpected(r.error());
  }
  return {};
}

RunnerResult<void> RunnerSession::map(const SharedArena& arena, const std::vector<TensorSlot>& slots,
                                      const std::vector<int64_t>& params) {
  nlohmann::json buffers = nlohmann::json::array();
  for (const auto& s : slots)
    buffers.push_back({{"offset", s.offset}, {"bytes", s.bytes}, {"output", s.role != core::Role::in}});
  auto r = request({{"op", "map"}, {"shm_bytes", arena.size()}, {"buffers", buffers}, {"params", params}},
                   m_cfg.command_timeout_ms, "setup");
  if (!r) return std::unexpected(r.error());
  return {};
}

RunnerResult<int64_t> RunnerSession::call() {
  auto r = request({{"op", "call"}}, m_cfg.command_timeout_ms, "a call of the kernel");
  if (!r) return std::unexpected(r.error());
  auto ns = (*r).value("ns", nlohmann::json::array());
  return ns.empty() ? int64_t(0) : ns[0].get<int64_t>();
}

RunnerResult<std::vector<int64_t>> RunnerSession::time(int calls, size_t flush_bytes, int timeout_ms, Copies copies) {
  nlohmann::json cmd = {{"op", "time"}, {"calls", calls}, {"flush_bytes", flush_bytes}};
  if (!copies.upload) cmd["upload"] = false;
  if (!copies.download) cmd["download"] = false;
  auto r = request(cmd, timeout_ms, "timing");
  if (!r) return std::unexpected(r.error());
  try {
    auto ns = (*r).at("ns").get<std::vector<int64_t>>();
    if (int(ns.size()) != calls) throw std::runtime_error("count");
    return ns;
  } catch (const std::exception&) {
    return std::unexpected(RunnerFailure{core::Status::sandbox_violation, "the runner returned malformed timings"});
  }
}

void RunnerSession::kill() {
  if (m_process) m_process->kill();
}

util::Result<void> RunnerSession::freeze() {
  if (!m_process) return util::fail("runner", "the runner is not running");
  return m_process->freeze();
}

void RunnerSession::thaw() {
  if (m_process) m_process->thaw();
}

std::string RunnerSession::finish() {
  if (m_cmd_w >= 0) {
    wire::write_line(m_cmd_w, {{"op", "quit"}});
    ::close(m_cmd_w);
    m_cmd_w = -1;
  }
  if (m_process) {
    auto outcome = m_process->wait(std::chrono::milliseconds(2000));
    m_stderr = outcome.stderr_text + outcome.stdout_text;
    m_process.reset();
  }
  return m_stderr;
}

}  // namespace kwb::eval
