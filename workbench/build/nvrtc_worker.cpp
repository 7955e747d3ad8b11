#include "build/nvrtc_worker.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "launcher/sandbox.hpp"
#include "protocol/protocol.hpp"
#include "util/fs.hpp"

namespace kwb::build {

namespace {
constexpr size_t k_max_header = 1u << 20;       // log is capped at 256 KiB by the worker
constexpr size_t k_max_cubin = 256u << 20;
}  // namespace

util::Result<std::unique_ptr<NvrtcWorker>> NvrtcWorker::start(const NvrtcWorkerConfig& cfg) {
  std::error_code ec;
  if (!std::filesystem::exists(cfg.worker, ec))
    return util::fail("nvrtc", "kwb-nvrtc-worker not found at " + cfg.worker.string() +
                                   " (it is built only where the CUDA toolkit is found)");
  auto scratch = util::make_unique_dir(cfg.scratch_parent, "nvrtc-");
  if (!scratch) return std::unexpected(scratch.error());
  int cmd[2], reply[2];
  if (::pipe2(cmd, O_CLOEXEC) != 0) return util::fail("nvrtc", std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(reply, O_CLOEXEC) != 0) {
    ::close(cmd[0]);
    ::close(cmd[1]);
    return util::fail("nvrtc", std::string("pipe: ") + std::strerror(errno));
  }
  std::unique_ptr<NvrtcWorker> w(new NvrtcWorker());
  w->m_scratch = *scratch;
  w->m_cmd_w = cmd[1];
  w->m_reply_r = reply[0];

  sandbox::Request req;
  req.bwrap = cfg.bwrap;
  req.job_dir = *scratch;
  req.binds.push_back({cfg.worker, "/kwb/kwb-nvrtc-worker", false});
  if (auto real = std::filesystem::canonical(cfg.toolkit, ec); !ec && !real.string().starts_with("/usr/"))
    req.binds.push_back({real, real.string(), false});
  req.profile = sandbox::compile_profile();
  req.profile.wall = std::chrono::hours(24);  // warm: every request has its own deadline
  req.profile.cpu_seconds = 3600;             // over the worker's life; NvrtcCompiler recycles it
  req.env = {{"PATH", "/usr/bin"}, {"LANG", "C"}, {"HOME", "/tmp"}, {"TMPDIR", "/tmp"}};
  req.inherit_fds = {cmd[0], reply[1]};
  req.argv = {"/kwb/kwb-nvrtc-worker", "--fds", std::to_string(cmd[0]) + "," + std::to_string(reply[1])};
  auto proc = sandbox::spawn(req);
  ::close(cmd[0]);
  ::close(reply[1]);
  if (!proc) return std::unexpected(proc.error());
  w->m_process = std::move(*proc);
  w->m_alive = true;
  ::signal(SIGPIPE, SIG_IGN);
  return w;
}

NvrtcWorker::~NvrtcWorker() {
  if (m_cmd_w >= 0) {
    if (m_alive) wire::write_line(m_cmd_w, {{"op", "quit"}});
    ::close(m_cmd_w);
  }
  if (m_process) {
    if (m_alive) m_process->wait(std::chrono::milliseconds(500));
    m_process->kill();
    m_process->wait(std::chrono::milliseconds(2000));
  }
  if (m_reply_r >= 0) ::close(m_reply_r);
  std::error_code ec;
  if (!m_scratch.empty()) std::filesystem::remove_all(m_scratch, ec);
}

util::Error NvrtcWorker::died(const std::string& during) {
  m_alive = false;
  std::string detail;
  if (m_process) {
    m_process->kill();
    auto out = m_process->wait(std::chrono::milliseconds(2000));
    detail = out.stderr_text + out.stdout_text;
    if (detail.size() > 400) detail = detail.substr(detail.size() - 400);
    if (out.signal) detail = "signal " + std::to_string(out.signal) + (detail.empty() ? "" : ": " + detail);
  }
  return {"nvrtc", "the NVRTC worker failed during " + during + (detail.empty() ? "" : " (" + detail + ")")};
}

util::Result<void> NvrtcWorker::fill(std::chrono::steady_clock::time_point deadline, bool& timed_out) {
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      return util::fail("nvrtc", "timeout");
    }
    pollfd p{m_reply_r, POLLIN, 0};
    int r = ::poll(&p, 1, int(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;
    char buf[65536];
    ssize_t got = ::read(m_reply_r, buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) return util::fail("nvrtc", "closed");
    m_buffer.append(buf, size_t(got));
    return {};
  }
}

util::Result<std::string> NvrtcWorker::read_line(std::chrono::steady_clock::time_point deadline, bool& timed_out) {
  while (true) {
    if (auto nl = m_buffer.find('\n'); nl != std::string::npos) {
      std::string line = m_buffer.substr(0, nl);
      m_buffer.erase(0, nl + 1);
      return line;
    }
    if (m_buffer.size() > k_max_header) return util::fail("nvrtc", "reply header too long");
    if (auto r = fill(deadline, timed_out); !r) return std::unexpected(r.error());
  }
}

util::Result<std::string> NvrtcWorker::read_bytes(size_t n, std::chrono::steady_clock::time_point deadline,
                                                  bool& timed_out) {
  while (m_buffer.size() < n)
    if (auto r = fill(deadline, timed_out); !r) return std::unexpected(r.error());
  std::string out = m_buffer.substr(0, n);
  m_buffer.erase(0, n);
  return out;
}

util::Result<std::string> NvrtcWorker::version(int timeout_ms) {
  if (!m_alive) return util::fail("nvrtc", "worker not running");
  if (!wire::write_line(m_cmd_w, {{"op", "version"}})) return std::unexpected(died("start-up"));
  bool timed_out = false;
  auto line = read_line(std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms), timed_out);
  if (!line) return std::unexpected(died(timed_out ? "start-up (no answer in time)" : "start-up"));
  auto j = nlohmann::json::parse(*line, nullptr, false);
  if (!j.is_object() || !j.value("ok", false)) return std::unexpected(died("start-up (bad reply)"));
  return j.value("nvrtc", std::string("?"));
}

util::Result<NvrtcReply> NvrtcWorker::compile(const std::string& name, const std::string& source,
                                              const std::vector<std::string>& options, int timeout_ms) {
  if (!m_alive) return util::fail("nvrtc", "worker not running");
  ++m_requests;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  if (!wire::write_line(m_cmd_w, {{"op", "compile"}, {"name", name}, {"source", source}, {"options", options}}))
    return std::unexpected(died("a compile request"));
  NvrtcReply reply;
  bool timed_out = false;
  auto line = read_line(deadline, timed_out);
  if (!line && timed_out) {
    died("a compile");
    reply.timed_out = true;
    return reply;
  }
  if (!line) return std::unexpected(died("a compile"));
  auto j = nlohmann::json::parse(*line, nullptr, false);
  if (!j.is_object()) return std::unexpected(died("a compile (malformed reply)"));
  if (!j.value("ok", false)) return util::fail("nvrtc", j.value("error", std::string("unknown error")));
  reply.compiled = j.value("compiled", false);
  reply.log = j.value("log", std::string());
  reply.result = j.value("result", std::string());
  if (reply.compiled && !j.contains("l2_policy"))  // fail closed: an older worker does not look
    return std::unexpected(died("a compile (the reply does not say whether the code sets L2 policies)"));
  reply.l2_policy = j.value("l2_policy", std::string());
  size_t bytes = j.value("cubin_bytes", size_t(0));
  if (bytes > k_max_cubin) return std::unexpected(died("a compile (cubin too large)"));
  if (bytes > 0) {
    auto cubin = read_bytes(bytes, deadline, timed_out);
    if (!cubin && timed_out) {
      died("a compile");
      reply.timed_out = true;
      return reply;
    }
    if (!cubin) return std::unexpected(died("a compile (cubin cut short)"));
    reply.cubin = std::move(*cubin);
  }
  if (reply.compiled && !j.contains("ptx_bytes"))  // an older worker: its PTX is needed for the facts
    return std::unexpected(died("a compile (the reply carries no PTX)"));
  size_t ptx_bytes = j.value("ptx_bytes", size_t(0));
  if (ptx_bytes > k_max_cubin) return std::unexpected(died("a compile (PTX too large)"));
  if (ptx_bytes > 0) {
    auto ptx = read_bytes(ptx_bytes, deadline, timed_out);
    if (!ptx && timed_out) {
      died("a compile");
      reply.timed_out = true;
      return reply;
    }
    if (!ptx) return std::unexpected(died("a compile (PTX cut short)"));
    reply.ptx = std::move(*ptx);
  }
  return reply;
}

}  // namespace kwb::build
