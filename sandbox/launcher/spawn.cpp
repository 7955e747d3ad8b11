// Starting a sandbox: validate the request (trusted-side errors), make the job cgroup, build
// bwrap's command line, fork, prepare the child (signals, session, cgroup, stdio, fds, rlimits)
// and exec bwrap with an empty environment.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <mutex>
#include <set>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "launcher/kernel_log.hpp"
#include "launcher/process_impl.hpp"
#include "launcher/seccomp_filter.hpp"

namespace kwb::sandbox {

namespace {

const char* const k_where = "sandbox";

std::string errno_text(int err) { return std::strerror(err); }

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : m_fd(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return m_fd; }
  int release() { return std::exchange(m_fd, -1); }
  void reset() {
    if (m_fd >= 0) close(m_fd);
    m_fd = -1;
  }

 private:
  int m_fd = -1;
};

// Everything the child needs, prepared before fork: after fork only async-signal-safe calls.
struct ChildPlan {
  const char* path = nullptr;
  std::vector<char*> argv;
  char* envp[1] = {nullptr};  // bwrap itself runs with an empty environment
  int stdio[3] = {-1, -1, -1};  // /dev/null, stdout pipe, stderr pipe
  int report_fd = -1;           // CLOEXEC pipe: {stage, errno} if anything before exec fails
  std::vector<int> pass_fds;    // made inheritable: Request.inherit_fds, seccomp, status
  std::vector<int> open_fds;    // sorted: every fd >= 3 that stays open until exec
  std::vector<std::pair<int, rlimit>> limits;
  std::vector<int> cgroup_fds;  // cgroup.procs of the job cgroup(s): the child moves itself in
  pid_t parent = -1;
};

enum Stage : int { k_setsid = 1, k_pdeathsig, k_cgroup, k_stdio, k_fds, k_rlimit, k_exec };

const char* stage_name(int stage) {
  switch (stage) {
    case k_setsid: return "setsid";
    case k_pdeathsig: return "prctl(PR_SET_PDEATHSIG)";
    case k_cgroup: return "moving into the job cgroup";
    case k_stdio: return "setting up stdin/stdout/stderr";
    case k_fds: return "preparing file descriptors";
    case k_rlimit: return "setrlimit";
    case k_exec: return "execve";
  }
  return "child setup";
}

[[noreturn]] void child_fail(const ChildPlan& p, int stage) {
  int msg[2] = {stage, errno};
  [[maybe_unused]] ssize_t n = write(p.report_fd, msg, sizeof msg);
  _exit(127);
}

[[noreturn]] void child_main(const ChildPlan& p) {
  struct sigaction dfl{};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);  // undo inherited SIG_IGN
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (setsid() < 0) child_fail(p, k_setsid);
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) child_fail(p, k_pdeathsig);
  if (getppid() != p.parent) _exit(127);  // the spawning thread is already gone
  // Into the job cgroup before exec, so bwrap and everything it starts are counted and killable.
  for (int fd : p.cgroup_fds) {
    if (write(fd, "0", 1) != 1) child_fail(p, k_cgroup);
  }
  int moved[3];
  for (int i = 0; i < 3; ++i) {  // first out of 0..2, so dup2 never sees equal numbers
    if ((moved[i] = fcntl(p.stdio[i], F_DUPFD_CLOEXEC, 3)) < 0) child_fail(p, k_stdio);
  }
  for (int i = 0; i < 3; ++i) {
    if (dup2(moved[i], i) < 0) child_fail(p, k_stdio);
  }
  for (int fd : p.pass_fds) {
    if (fcntl(fd, F_SETFD, 0) < 0) child_fail(p, k_fds);
  }
  unsigned low = 3;
  for (int fd : p.open_fds) {
    if (static_cast<unsigned>(fd) > low) close_range(low, static_cast<unsigned>(fd) - 1, 0);
    low = static_cast<unsigned>(fd) + 1;
  }
  if (close_range(low, ~0u, 0) < 0) child_fail(p, k_fds);
  for (const auto& [resource, value] : p.limits) {
    if (setrlimit(static_cast<__rlimit_resource_t>(resource), &value) < 0) child_fail(p, k_rlimit);
  }
  execve(p.path, p.argv.data(), const_cast<char**>(p.envp));
  child_fail(p, k_exec);
}

util::Result<void> validate(const Request& req) {
  namespace fs = std::filesystem;
  if (req.argv.empty()) return util::fail(k_where, "empty command (Request.argv)");
  if (access(req.bwrap.c_str(), X_OK) != 0) {
    return util::fail(k_where, "bubblewrap not found or not executable at " + req.bwrap.string() + " (" +
                                   errno_text(errno) + "); install bubblewrap or set Request.bwrap");
  }
  std::error_code ec;
  if (req.job_dir.empty() || !fs::is_directory(req.job_dir, ec)) {
    return util::fail(k_where, "job directory '" + req.job_dir.string() + "' does not exist or is not a directory");
  }
  for (const Bind& b : req.binds) {
    if (!fs::exists(b.host, ec)) return util::fail(k_where, "bind source " + b.host.string() + " does not exist");
    if (!b.inside.starts_with('/')) {
      return util::fail(k_where, "bind target '" + b.inside + "' (for " + b.host.string() + ") must be absolute");
    }
  }
  for (const auto& [name, value] : req.env) {
    if (name.empty() || name.find('=') != std::string::npos) {
      return util::fail(k_where, "bad environment variable name '" + name + "'");
    }
  }
  for (int fd : req.inherit_fds) {
    if (fd <= 2) return util::fail(k_where, "inherit_fds: fd " + std::to_string(fd) + " is stdin/stdout/stderr");
    if (fcntl(fd, F_GETFD) < 0) return util::fail(k_where, "inherit_fds: fd " + std::to_string(fd) + " is not open");
  }
  return {};
}

// A memfd holding bwrap's options, NUL-terminated (bwrap --args FD): everything of `args`
// between argv[0] and the "--" before the command's `command_size` words.
util::Result<int> options_fd(const std::vector<std::string>& args, size_t command_size) {
  std::string data;
  for (size_t i = 1; i + command_size + 1 < args.size(); ++i) data.append(args[i]).push_back('\0');
  int fd = memfd_create("kwb-bwrap-args", MFD_CLOEXEC);
  if (fd < 0) return util::fail(k_where, "memfd_create: " + errno_text(errno));
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      close(fd);
      return util::fail(k_where, "writing bwrap's options: " + errno_text(err));
    }
    done += static_cast<size_t>(n);
  }
  if (lseek(fd, 0, SEEK_SET) != 0) {
    int err = errno;
    close(fd);
    return util::fail(k_where, "lseek: " + errno_text(err));
  }
  return fd;
}

// "kwb-bwrap-" and 16 random hex digits.
std::string random_name() {
  unsigned char bytes[8] = {};
  if (getrandom(bytes, sizeof bytes, 0) != sizeof bytes) {
    static std::atomic<uint64_t> counter{0};
    uint64_t v = (uint64_t(getpid()) << 32) ^ ++counter ^ uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    std::memcpy(bytes, &v, sizeof bytes);
  }
  std::string out = "kwb-bwrap-";
  const char* digits = "0123456789abcdef";
  for (unsigned char b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

// Says once per process and problem, on stderr, that memory and process limits fell back.
void warn_no_cgroup(const std::string& problem) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard lock(mutex);
  if (!said.insert(problem).second) return;
  auto logger = spdlog::get("sandbox");
  if (!logger) {
    try {
      logger = spdlog::stderr_logger_mt("sandbox");
    } catch (const spdlog::spdlog_ex&) {
      logger = spdlog::get("sandbox");
    }
  }
  if (logger) {
    logger->warn("{}; memory is limited by RLIMIT_AS instead and the number of processes is not limited "
                 "(docs/security.md)", problem);
  }
}

std::vector<std::pair<int, rlimit>> limits_of(const Profile& p, bool memory_cgroup) {
  auto lim = [](int64_t soft, int64_t hard) { return rlimit{static_cast<rlim_t>(soft), static_cast<rlim_t>(hard)}; };
  std::vector<std::pair<int, rlimit>> limits{{RLIMIT_CORE, lim(0, 0)}};
  // CPU: SIGXCPU at the soft limit, SIGKILL one second later.
  if (p.cpu_seconds > 0) limits.push_back({RLIMIT_CPU, lim(p.cpu_seconds, p.cpu_seconds + 1)});
  if (p.file_bytes > 0) limits.push_back({RLIMIT_FSIZE, lim(p.file_bytes, p.file_bytes)});
  if (p.open_files > 0) limits.push_back({RLIMIT_NOFILE, lim(p.open_files, p.open_files)});
  if (!memory_cgroup) {
    int64_t as = p.address_space_bytes > 0 ? p.address_space_bytes
                 : p.memory_bytes > 0 && !p.gpu ? p.memory_bytes + (1ll << 30)
                                                 : 0;
    if (as > 0) limits.push_back({RLIMIT_AS, lim(as, as)});
  }
  return limits;
}

}  // namespace

util::Result<std::unique_ptr<Process>> spawn(const Request& request) {
  if (auto ok = validate(request); !ok) return std::unexpected(ok.error());
  Request req = request;  // bwrap resolves relative paths against its cwd; be explicit
  req.job_dir = std::filesystem::absolute(req.job_dir);
  for (Bind& b : req.binds) b.host = std::filesystem::absolute(b.host);
  std::unique_ptr<detail::Decoys> decoys;
  if (!req.profile.decoys.empty()) {
    auto planted = detail::Decoys::plant(req.profile.decoys);
    if (!planted) return std::unexpected(planted.error());
    decoys = std::move(*planted);
    for (Bind& b : decoys->binds()) req.binds.push_back(std::move(b));
  }

  Fd null_fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (null_fd.get() < 0) return util::fail(k_where, "cannot open /dev/null: " + errno_text(errno));
  int p_out[2], p_err[2], p_status[2], p_report[2];
  for (int* p : {p_out, p_err, p_status, p_report}) p[0] = p[1] = -1;
  bool piped = pipe2(p_out, O_CLOEXEC) == 0 && pipe2(p_err, O_CLOEXEC) == 0 &&
               pipe2(p_status, O_CLOEXEC | O_NONBLOCK) == 0 && pipe2(p_report, O_CLOEXEC) == 0;
  int pipe_errno = errno;
  Fd out_r(p_out[0]), out_w(p_out[1]), err_r(p_err[0]), err_w(p_err[1]);
  Fd status_r(p_status[0]), status_w(p_status[1]), report_r(p_report[0]), report_w(p_report[1]);
  if (!piped) return util::fail(k_where, "cannot create pipes: " + errno_text(pipe_errno));
  // Only the read end is non-blocking: bwrap writes its status with ordinary blocking writes.
  fcntl(status_w.get(), F_SETFL, 0);
  auto seccomp = detail::seccomp_program_fd(req.profile.strict_seccomp);
  if (!seccomp) return std::unexpected(seccomp.error());
  Fd seccomp_fd(*seccomp);

  // The job cgroup (memory and process limits), or the rlimit fallback with a warning.
  std::unique_ptr<detail::JobCgroup> cgroup;
  std::string limits;
  if (req.profile.memory_bytes > 0 || req.profile.max_processes > 0) {
    std::string problem;
    cgroup = detail::JobCgroup::create(req.profile.memory_bytes, req.profile.max_processes, problem);
    limits = cgroup ? detail::cgroup_setup()->describe() : "no cgroups: " + problem;
    if (!cgroup) warn_no_cgroup("sandbox: no cgroup for the job: " + problem);
  }

  std::vector<std::string> args = bwrap_argv(req, {seccomp_fd.get(), status_w.get(), "/dev"});
  // bwrap's options travel through a memfd (--args FD), not its command line: the sandbox's pid 1
  // is a fork of bwrap, and its /proc/1/cmdline would show the host paths of the job dir and the
  // binds and the environment given to the command.
  auto options = options_fd(args, req.argv.size());
  if (!options) return std::unexpected(options.error());
  Fd args_fd(*options);
  // argv[0] is a random name: the sandbox's pid 1 is bwrap's fork and carries it, so pid 1 can be
  // found (and killed) even when bwrap dies before it reports pid 1's pid (process.cpp).
  std::string name = random_name();
  std::vector<std::string> exec_args{name, "--args", std::to_string(args_fd.get())};
  exec_args.insert(exec_args.end(), args.end() - static_cast<long>(req.argv.size()) - 1, args.end());
  ChildPlan plan;
  plan.path = req.bwrap.c_str();
  for (std::string& a : exec_args) plan.argv.push_back(a.data());
  plan.argv.push_back(nullptr);
  plan.stdio[0] = null_fd.get();
  plan.stdio[1] = out_w.get();
  plan.stdio[2] = err_w.get();
  plan.report_fd = report_w.get();
  plan.pass_fds = req.inherit_fds;
  plan.pass_fds.push_back(seccomp_fd.get());
  plan.pass_fds.push_back(status_w.get());
  plan.pass_fds.push_back(args_fd.get());
  plan.open_fds = plan.pass_fds;
  plan.open_fds.push_back(report_w.get());
  std::sort(plan.open_fds.begin(), plan.open_fds.end());
  plan.open_fds.erase(std::unique(plan.open_fds.begin(), plan.open_fds.end()), plan.open_fds.end());
  plan.limits = limits_of(req.profile, cgroup != nullptr);
  if (cgroup) plan.cgroup_fds = cgroup->procs_fds();
  plan.parent = getpid();

  int kmsg_fd = detail::open_kernel_log();  // to name a call the seccomp filter kills for
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    if (kmsg_fd >= 0) close(kmsg_fd);
    return util::fail(k_where, "fork failed: " + errno_text(err));
  }
  if (pid == 0) child_main(plan);

  for (Fd* fd : {&out_w, &err_w, &status_w, &report_w, &null_fd, &seccomp_fd, &args_fd}) fd->reset();
  int msg[2] = {0, 0};
  ssize_t n;
  while ((n = read(report_r.get(), msg, sizeof msg)) < 0 && errno == EINTR) {
  }
  if (n == sizeof msg) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    if (kmsg_fd >= 0) close(kmsg_fd);
    if (msg[0] == k_cgroup) {  // detected, but not usable: fall back to rlimits, once and for all
      detail::disable_cgroups("cannot move a process into a job cgroup: " + errno_text(msg[1]));
      return spawn(request);
    }
    std::string what = msg[0] == k_exec ? "cannot execute " + req.bwrap.string() : stage_name(msg[0]);
    return util::fail(k_where, what + ": " + errno_text(msg[1]));
  }
  auto impl = std::make_unique<Process::Impl>();
  impl->pid = pid;
  impl->start = start;
  impl->kmsg_fd = kmsg_fd;
  impl->profile = req.profile;
  impl->name = name;
  impl->cgroup = std::move(cgroup);
  impl->limits = std::move(limits);
  impl->decoys = std::move(decoys);
  impl->pidfd = detail::pidfd_open(pid);
  if (impl->pidfd < 0) {
    int err = errno;
    ::kill(pid, SIGKILL);
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    return util::fail(k_where, "pidfd_open failed: " + errno_text(err));
  }
  impl->status_fd = status_r.release();
  Process::Impl& state = *impl;
  auto process = std::make_unique<Process>(std::move(impl));  // from here on, kills on unwind
  // A flood of output where that is a violation: stop the whole sandbox at once (from the drain's
  // thread, without the Process's mutex, which wait() holds while it joins that thread; pidfd and
  // cgroup outlive the drain).
  std::function<void()> on_overflow;
  if (req.profile.output_overflow_fails) {
    on_overflow = [&state] {
      detail::pidfd_kill(state.pidfd);  // bwrap: --die-with-parent takes pid 1 and the rest along
      if (state.cgroup) state.cgroup->kill_all();
    };
  }
  state.drain = std::make_unique<detail::OutputDrain>(out_r.release(), err_r.release(), req.profile.output_bytes,
                                                      std::move(on_overflow));
  // bwrap reports pid 1 right after cloning it (a few ms); learn it while bwrap is alive. The
  // Process is not shared yet, so no lock is needed.
  state.read_status(Process::Impl::Until::report, std::chrono::seconds(10));
  return process;
}

util::Result<Outcome> run(const Request& req) {
  auto process = spawn(req);
  if (!process) return std::unexpected(process.error());
  return (*process)->wait(req.profile.wall);
}

}  // namespace kwb::sandbox
