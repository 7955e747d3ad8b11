#include "eval/runner_client.hpp"

#include <chrono>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "eval/runner_client_reply.hpp"
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
std::string kill_for_timeout(sandbox::Process& process, std::string& output, const std::string& who) {
  process.kill();
  auto outcome = process.wait(std::chrono::milliseconds(5000));
  output = outcome.stderr_text + outcome.stdout_text;
  auto limit = sandbox::breach(outcome, who);
  if (limit.kind == sandbox::Breach::processes) return "; " + limit.reason;
  return limit.note.empty() ? "" : "; " + limit.note;
}

// Data waiting on `fd` now (a reply nobody asked for).
bool readable_now(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

}  // namespace

util::Result<std::unique_ptr<RunnerSession>> RunnerSession::start(const RunnerConfig& cfg, const SharedArena& arena) {
  // Commands, replies and the paced timing's go and done pipes (CPU calls; cuda-launcher samples).
  int cmd[2] = {-1, -1}, reply[2] = {-1, -1}, go[2] = {-1, -1}, done[2] = {-1, -1};
  bool piped = ::pipe2(cmd, O_CLOEXEC) == 0 && ::pipe2(reply, O_CLOEXEC) == 0 && ::pipe2(go, O_CLOEXEC) == 0 &&
               ::pipe2(done, O_CLOEXEC) == 0;
  int pipe_errno = errno;
  std::unique_ptr<RunnerSession> s(new RunnerSession());
  s->m_cfg = cfg;
  s->m_cmd_w = cmd[1];
  s->m_reply_r = reply[0];
  s->m_go_w = go[1];
  s->m_done_r = done[0];
  auto close_inside_ends = [&] {
    for (int fd : {cmd[0], reply[1], go[0], done[1]})
      if (fd >= 0) ::close(fd);
  };
  if (!piped) {
    close_inside_ends();
    return util::fail("runner", std::string("pipe: ") + std::strerror(pipe_errno));
  }
  s->m_reader = std::make_unique<ReplyReader>(reply[0]);

  sandbox::Request req;
  req.bwrap = cfg.bwrap;
  req.job_dir = cfg.job_dir;
  req.binds.push_back({cfg.runner, "/kwb/kwb-runner", false});
  for (const auto& [host, inside] : cfg.binds) req.binds.push_back({host, inside, false});
  req.profile = sandbox::run_profile();
  req.profile.wall = std::chrono::hours(24);  // each command has its own deadline; wait() below
  req.profile.gpu = cfg.gpu;
  req.profile.gpu_minor = cfg.gpu_minor;
  if (cfg.cpu_seconds > 0) req.profile.cpu_seconds = cfg.cpu_seconds;
  if (cfg.memory_bytes > 0) req.profile.memory_bytes = cfg.memory_bytes;
  // Without a memory cgroup the launcher falls back to RLIMIT_AS, which also counts the arena's
  // mapping (the arena's pages are charged to the trusted side, not to the runner's cgroup).
  if (!cfg.gpu) req.profile.address_space_bytes = int64_t(arena.size()) + req.profile.memory_bytes + (1ll << 30);
  req.profile.max_processes = std::max(req.profile.max_processes, cfg.threads + 32);
  s->m_process_limit = req.profile.max_processes;
  // Candidate code gets the strict filter, in the CPU and the GPU runner alike (a cuda-launcher's
  // host code runs there; the CUDA driver and CUPTI were checked under it on the H200): a refused
  // call or a new process is a verdict (docs/security.md).
  req.profile.strict_seccomp = cfg.tool_argv.empty();  // a tool starts the runner: processes allowed
  if (!cfg.tool_argv.empty()) {
    req.profile.max_processes += 256;  // the tool's own processes and threads
    req.profile.job_writable = true;   // the tool's report
  }
  req.profile.decoys = sandbox::candidate_decoys();  // and an open of a host secret's path is one too
  // Idle OpenMP threads sleep instead of spinning: every CPU cycle of the runner outside a timed
  // call counts against the candidate (runner_client_timing.cpp).
  req.env = {{"PATH", "/usr/bin"}, {"LANG", "C"}, {"OMP_NUM_THREADS", std::to_string(cfg.threads)},
             {"OMP_WAIT_POLICY", "PASSIVE"}};
  if (!cfg.tool_argv.empty()) req.env.insert(req.env.end(), {{"HOME", "/tmp"}, {"TMPDIR", "/tmp"}});
  req.env.insert(req.env.end(), cfg.env.begin(), cfg.env.end());
  req.inherit_fds = {cmd[0], reply[1], arena.fd(), go[0], done[1]};
  std::string fds = std::to_string(cmd[0]) + "," + std::to_string(reply[1]) + "," + std::to_string(arena.fd());
  for (int fd : {go[0], done[1]}) fds.append(",").append(std::to_string(fd));
  req.argv = cfg.tool_argv;
  req.argv.insert(req.argv.end(), {"/kwb/kwb-runner", "--fds", fds});
  auto proc = sandbox::spawn(req);
  close_inside_ends();
  if (!proc) return std::unexpected(proc.error());
  s->m_process = std::move(*proc);
  ::signal(SIGPIPE, SIG_IGN);
  return s;
}

RunnerSession::~RunnerSession() {
  if (m_process) m_process->kill();
  for (int fd : {m_cmd_w, m_reply_r, m_go_w, m_done_r})
    if (fd >= 0) ::close(fd);
  if (m_view) ::munmap(m_view, m_view_bytes);
}

RunnerFailure RunnerSession::violation(const std::string& reason) {
  m_process->kill();
  return {core::Status::sandbox_violation, reason};
}

RunnerFailure RunnerSession::timeout_failure(const char* what, int timeout_ms) {
  return {core::Status::time_limit, std::string(what) + " did not finish within " + std::to_string(timeout_ms) +
                                        " ms (endless loop, deadlock, or far too slow)" +
                                        kill_for_timeout(*m_process, m_stderr, m_cfg.who)};
}

RunnerFailure RunnerSession::classify_exit(const char* what) {
  auto outcome = m_process->wait(std::chrono::milliseconds(2000));
  m_stderr = outcome.stderr_text + outcome.stdout_text;
  std::string tail = m_stderr.size() > 400 ? m_stderr.substr(m_stderr.size() - 400) : m_stderr;
  std::string note = tail.empty() ? "" : "; output: " + tail;
  auto limit = sandbox::breach(outcome, m_cfg.who);
  std::string during = std::string(" (during ") + what + ")";
  std::string hint = limit.note.empty() ? "" : "; " + limit.note;
  // A fork or thread bomb is an attempt on the sandbox whatever else became of the candidate.
  if (outcome.process_limit_hit && limit.kind != sandbox::Breach::output && limit.kind != sandbox::Breach::memory &&
      limit.kind != sandbox::Breach::outside_kill) {
    std::string fate = outcome.signal ? "it then died of " + signal_text(outcome.signal)
                                      : "it then exited with code " + std::to_string(outcome.exit_code);
    return {core::Status::sandbox_violation,
            m_cfg.who + " tried to start more processes or threads than allowed: " +
                (limit.kind == sandbox::Breach::processes ? limit.reason : limit.note) + "; " + fate + during + note};
  }
  switch (limit.kind) {
    case sandbox::Breach::output: return {core::Status::output_limit, limit.reason + during};
    case sandbox::Breach::memory: return {core::Status::memory_limit, limit.reason + during + hint};
    case sandbox::Breach::forbidden_syscall: return {core::Status::sandbox_violation, limit.reason + during + hint + note};
    case sandbox::Breach::decoy: return {core::Status::sandbox_violation, limit.reason + during + hint + note};
    case sandbox::Breach::cpu_time: return {core::Status::time_limit, limit.reason + during};
    case sandbox::Breach::outside_kill: return {core::Status::error, limit.reason + during};
    case sandbox::Breach::processes: hint = "; " + limit.reason; break;
    case sandbox::Breach::file_size:  // SIGXFSZ: named by signal_text below
    case sandbox::Breach::wall_time:  // the session has no wall limit of its own: it stopped answering
    case sandbox::Breach::none: break;
  }
  if (outcome.signal)
    return {core::Status::crashed, m_cfg.who + " crashed during " + what + ": " +
                                       signal_text(outcome.signal) + hint + note};
  return {core::Status::crashed, std::string("the runner exited with code ") + std::to_string(outcome.exit_code) +
                                     " during " + what + " (did " + m_cfg.who + " call exit()?)" + hint + note};
}

RunnerResult<nlohmann::json> RunnerSession::request(const nlohmann::json& command, int timeout_ms, const char* what) {
  // The previous command was answered exactly once: anything more on the pipe was written by
  // someone else (and may have been read as that answer).
  if (m_reader->buffered() || readable_now(m_reply_r))
    return std::unexpected(violation(std::string("the runner's reply channel held a reply nobody asked for before ") +
                                     what + ": the candidate wrote to the runner's reply descriptor"));
  nlohmann::json cmd = command;
  cmd["seq"] = ++m_seq;
  auto gate = hold_gate();  // the command's timeout starts once the GPU is this session's
  auto t0 = std::chrono::steady_clock::now();
  if (!wire::write_line(m_cmd_w, cmd)) return std::unexpected(classify_exit(what));
  auto reply = read_reply(timeout_ms, what);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  m_busy_ms += ms;
  const std::string op = cmd.value("op", std::string());
  m_busy_by_kind[op == "time" || op == "fetch" ? "timing" : op == "call" ? "calls" : "setup"] += ms;
  static const bool trace = std::getenv("KWB_RUNNER_TRACE") != nullptr;  // where the runner's time goes
  if (trace) std::fprintf(stderr, "kwb runner: %-8s %8.2f ms\n", op.c_str(), ms);
  return reply;
}

std::unique_lock<DeviceGate> RunnerSession::hold_gate() {
  if (!m_cfg.gate) return {};
  auto t0 = std::chrono::steady_clock::now();
  std::unique_lock hold(*m_cfg.gate);
  m_gate_wait_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return hold;
}

RunnerResult<nlohmann::json> RunnerSession::read_reply(int timeout_ms, const char* what) {
  nlohmann::json reply;
  auto status = m_reader->read(reply, timeout_ms);
  switch (status) {
    case wire::LineReader::Status::ok: break;
    case wire::LineReader::Status::timeout: return std::unexpected(timeout_failure(what, timeout_ms));
    case wire::LineReader::Status::closed: return std::unexpected(classify_exit(what));
    case wire::LineReader::Status::too_long:
    case wire::LineReader::Status::bad_json:
      return std::unexpected(violation(std::string("the runner's control channel was corrupted during ") + what +
                                       " (the candidate wrote to the runner's reply descriptor)"));
  }
  if (auto problem = detail::reply_problem(reply, m_seq); !problem.empty())
    return std::unexpected(violation("the runner's control channel was corrupted during " + std::string(what) + ": " +
                                     problem + " (the candidate wrote to the runner's reply descriptor)"));
  if (m_process->process_limit_reached())
    return std::unexpected(violation(m_cfg.who + " tried to start more processes or threads than the run profile's "
                                     "limit of " + std::to_string(m_process_limit) +
                                     " allows (a fork or thread bomb?), during " + what));
  if (auto opened = m_process->decoys_opened(); !opened.empty())
    return std::unexpected(violation(sandbox::decoy_text(opened, m_cfg.who) + ", during " + what));
  m_idle_from = runner_cpu_ns();
  if (!reply.at("ok").get<bool>()) return std::unexpected(RunnerFailure{core::Status::error, reply.at("error").get<std::string>()});
  return reply;
}

RunnerResult<nlohmann::json> RunnerSession::command(const nlohmann::json& cmd, int timeout_ms, const char* what) {
  auto r = request(cmd, timeout_ms, what);
  const std::string op = cmd.value("op", std::string());
  if (r && m_cfg.gpu && op == "load" && cmd.contains("so")) m_gpu_launcher = true;
  // kwb-runner's own count is the candidate's to forge; this side counted the retaken samples
  // (for a cuda-launcher, the paced samples it retook, beside the runner's own queued ones).
  if (r && op == "stats") {
    if (!m_cfg.gpu || m_gpu_launcher) (*r)["discarded"] = m_discarded;
    if (m_gpu_launcher) (*r)["raised_to_window"] = m_raised_to_window;
    m_discarded = 0;
    m_raised_to_window = 0;
  }
  return r;
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
                                      const std::vector<int64_t>& params, const std::vector<double>& scalars) {
  nlohmann::json buffers = nlohmann::json::array();
  for (const auto& s : slots)
    buffers.push_back({{"offset", s.offset}, {"bytes", s.bytes}, {"output", s.role != core::Role::in}});
  nlohmann::json cmd = {{"op", "map"}, {"shm_bytes", arena.size()}, {"buffers", buffers}, {"params", params}};
  if (!m_cfg.gpu && m_cfg.arena_address) cmd["at"] = uint64_t(m_cfg.arena_address);  // cpu_placement.hpp
  if (!scalars.empty()) cmd["scalars"] = scalars;
  auto r = request(cmd, m_cfg.command_timeout_ms, "setup");
  if (!r) return std::unexpected(r.error());
  if (!m_cfg.gpu) remap(arena, slots);
  return {};
}

RunnerResult<int64_t> RunnerSession::call(const char* what) {
  auto r = request({{"op", "call"}}, m_cfg.command_timeout_ms, what);
  if (!r) return std::unexpected(r.error());
  auto ns = (*r).value("ns", nlohmann::json::array());  // type-checked by reply_problem
  return ns.empty() ? int64_t(0) : ns[0].get<int64_t>();
}

RunnerResult<std::vector<int64_t>> RunnerSession::time(int calls, size_t flush_bytes, int timeout_ms, Copies copies) {
  if (!m_cfg.gpu) return paced_time(calls, flush_bytes, timeout_ms);
  if (m_gpu_launcher) return gpu_paced_time(calls, flush_bytes, timeout_ms, copies);
  nlohmann::json cmd = {{"op", "time"}, {"calls", calls}, {"flush_bytes", flush_bytes}};
  if (!copies.upload) cmd["upload"] = false;
  if (!copies.download) cmd["download"] = false;
  auto r = request(cmd, timeout_ms, "timing");
  if (!r) return std::unexpected(r.error());
  auto ns = (*r).value("ns", nlohmann::json::array()).get<std::vector<int64_t>>();  // type-checked
  if (int(ns.size()) != calls)
    return std::unexpected(violation("the runner returned " + std::to_string(ns.size()) + " timings for " +
                                     std::to_string(calls) + " calls"));
  return ns;
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
