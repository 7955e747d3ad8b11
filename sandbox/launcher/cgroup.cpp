// Job cgroups (cgroup.hpp): detection, creation with limits, usage, killing and removal.
#include "launcher/cgroup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>

#include "launcher/process_impl.hpp"
#include "launcher/sandbox.hpp"

namespace kwb::sandbox {

namespace {

std::mutex g_parent_mutex;
std::string g_parent = "kwb";  // guarded by g_parent_mutex

}  // namespace

void set_cgroup_parent(std::string parent) {
  std::lock_guard lock(g_parent_mutex);
  g_parent = std::move(parent);
}

CgroupStatus cgroup_status() {
  auto setup = detail::cgroup_setup();
  CgroupStatus s;
  s.enforced = setup->version != detail::CgroupSetup::Version::none;
  s.version = setup->version == detail::CgroupSetup::Version::v1   ? "v1"
              : setup->version == detail::CgroupSetup::Version::v2 ? "v2"
                                                                   : "";
  s.detail = setup->describe();
  return s;
}

namespace detail {

namespace {

namespace fs = std::filesystem;
using Version = CgroupSetup::Version;

std::string errno_text(int err) { return std::strerror(err); }

// Reads a small file (cgroup files, /proc); "" when it cannot be read.
std::string slurp(const fs::path& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return "";
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

// Writes `text` in one write(2), as cgroup files want; 0 or the errno.
int write_text(const fs::path& path, std::string_view text) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t n;
  while ((n = write(fd, text.data(), text.size())) < 0 && errno == EINTR) {
  }
  int err = n == static_cast<ssize_t>(text.size()) ? 0 : (n < 0 ? errno : EIO);
  close(fd);
  return err;
}

// The value of "key N" in a flat keyed file (memory.events, pids.events, memory.oom_control);
// -1 when absent.
int64_t keyed_value(const std::string& text, std::string_view key) {
  std::istringstream in(text);
  std::string k;
  int64_t v;
  while (in >> k >> v) {
    if (k == key) return v;
  }
  return -1;
}

bool has_word(const std::string& list, std::string_view word) {
  std::istringstream in(list);
  for (std::string w; in >> w;) {
    if (w == word) return true;
  }
  return false;
}

struct Mount {
  fs::path point;
  std::string root;  // the mount's root inside the hierarchy ("/" unless a subtree is mounted)
};

// cgroup mounts from /proc/self/mountinfo: v1 hierarchies of `memory` and `pids`, and cgroup2.
struct Mounts {
  std::optional<Mount> v1_memory, v1_pids, v2;
};

Mounts find_mounts() {
  Mounts m;
  std::istringstream in(slurp("/proc/self/mountinfo"));
  for (std::string line; std::getline(in, line);) {
    // id parent major:minor root mount-point options [optional...] - fstype source super-options
    std::istringstream f(line);
    std::string id, parent, dev, root, point, options, word;
    f >> id >> parent >> dev >> root >> point >> options;
    while (f >> word && word != "-") {
    }
    std::string fstype, source, super;
    f >> fstype >> source >> super;
    if (fstype == "cgroup2" && !m.v2) m.v2 = Mount{point, root};
    if (fstype != "cgroup") continue;
    std::istringstream opts(super);
    for (std::string opt; std::getline(opts, opt, ',');) {
      if (opt == "memory" && !m.v1_memory) m.v1_memory = Mount{point, root};
      if (opt == "pids" && !m.v1_pids) m.v1_pids = Mount{point, root};
    }
  }
  return m;
}

std::string rel_of(const Mount& m, const std::string& parent) {
  return (m.root == "/" ? std::string() : m.root) + "/" + parent;
}

bool make_dir(const fs::path& path, std::string& problem) {
  if (mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) return true;
  problem = "cannot create " + path.string() + ": " + errno_text(errno);
  return false;
}

// Removes empty job cgroups left by kwb processes that no longer exist ("job-<pid>-<n>").
void remove_stale(const fs::path& parent) {
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!name.starts_with("job-")) continue;
    pid_t owner = static_cast<pid_t>(std::strtol(name.c_str() + 4, nullptr, 10));
    if (owner <= 0 || (kill(owner, 0) == 0 || errno != ESRCH)) continue;
    rmdir(it->path().c_str());  // fails (EBUSY) while anything is still inside: then it stays
  }
}

void setup_v1(const Mounts& m, const std::string& parent, CgroupSetup& s) {
  s.memory_parent = m.v1_memory->point / parent;
  s.pids_parent = m.v1_pids->point / parent;
  s.memory_parent_rel = rel_of(*m.v1_memory, parent);
  s.pids_parent_rel = rel_of(*m.v1_pids, parent);
  for (const fs::path& dir : {s.memory_parent, s.pids_parent}) {
    fs::path at = dir.parent_path();
    for (const auto& part : fs::path(parent)) {  // nested parent names: create each level
      at /= part;
      if (!make_dir(at, s.problem)) return;
    }
    remove_stale(dir);
  }
  s.version = Version::v1;
}

void setup_v2(const Mount& m, const std::string& parent, CgroupSetup& s) {
  std::string controllers = slurp(m.point / "cgroup.controllers");
  if (!has_word(controllers, "memory") || !has_word(controllers, "pids")) {
    s.problem = "the cgroup v2 hierarchy at " + m.point.string() + " does not offer the memory and pids controllers";
    return;
  }
  // Every level from the root down to the parent must pass memory and pids on to its children.
  // A cgroup that holds processes (other than the root) cannot: then kwb needs a delegated
  // cgroup of its own (set the parent to it).
  fs::path at = m.point;
  std::vector<fs::path> levels{at};
  for (const auto& part : fs::path(parent)) {
    at /= part;
    if (!make_dir(at, s.problem)) return;
    levels.push_back(at);
  }
  for (const fs::path& level : levels) {
    std::string enabled = slurp(level / "cgroup.subtree_control");
    if (has_word(enabled, "memory") && has_word(enabled, "pids")) continue;
    if (int err = write_text(level / "cgroup.subtree_control", "+memory +pids"); err != 0) {
      s.problem = "cannot enable the memory and pids controllers in " + (level / "cgroup.subtree_control").string() +
                  ": " + errno_text(err) +
                  (err == EBUSY ? " (that cgroup holds processes; point the sandbox's cgroup parent at a cgroup "
                                  "delegated to kwb)"
                                : "");
      return;
    }
  }
  s.memory_parent = s.pids_parent = at;
  s.memory_parent_rel = s.pids_parent_rel = rel_of(m, parent);
  remove_stale(at);
  s.version = Version::v2;
}

std::shared_ptr<const CgroupSetup> detect(const std::string& parent) {
  auto s = std::make_shared<CgroupSetup>();
  if (parent.empty() || parent == "off") {
    s->problem = "cgroups are turned off (sandbox cgroup parent \"off\")";
    return s;
  }
  if (fs::path(parent).is_absolute() || parent.find("..") != std::string::npos) {
    s->problem = "the sandbox cgroup parent '" + parent + "' must be a relative path inside the hierarchy";
    return s;
  }
  Mounts m = find_mounts();
  if (m.v1_memory && m.v1_pids) {
    setup_v1(m, parent, *s);
  } else if (m.v2) {
    setup_v2(*m.v2, parent, *s);
  } else {
    s->problem = "no cgroup hierarchy with the memory and pids controllers is mounted";
  }
  if (s->version == Version::v2) s->v2_kill = access((s->memory_parent / "cgroup.kill").c_str(), F_OK) == 0;
  if (s->version == Version::none && s->problem.empty()) s->problem = "cgroups are not available";
  return s;
}

std::atomic<uint64_t> g_job_counter{0};

bool has_item(const std::string& list, std::string_view item) {
  std::istringstream in(list);
  for (std::string w; std::getline(in, w, ',');) {
    if (w == item) return true;
  }
  return false;
}

// Is process `pid` in the cgroup that /proc/<pid>/cgroup spells `rel` (in the hierarchy that
// holds the pids controller)?
bool member_of(pid_t pid, Version version, const std::string& rel) {
  std::istringstream in(slurp("/proc/" + std::to_string(pid) + "/cgroup"));
  for (std::string line; std::getline(in, line);) {
    auto first = line.find(':');  // "id:controllers:path"
    auto second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    std::string controllers = line.substr(first + 1, second - first - 1);
    bool hierarchy = version == Version::v2 ? line.starts_with("0::") : has_item(controllers, "pids");
    if (hierarchy) return line.substr(second + 1) == rel;
  }
  return false;
}

std::vector<pid_t> pids_in(const fs::path& dir) {
  std::vector<pid_t> pids;
  std::istringstream in(slurp(dir / "cgroup.procs"));
  for (long pid; in >> pid;) pids.push_back(static_cast<pid_t>(pid));
  return pids;
}

}  // namespace

std::string CgroupSetup::describe() const {
  switch (version) {
    case Version::v1: return "cgroup v1 (" + memory_parent.string() + ", " + pids_parent.string() + ")";
    case Version::v2: return "cgroup v2 (" + memory_parent.string() + ")";
    case Version::none: break;
  }
  return "no cgroups: " + problem;
}

namespace {
std::mutex g_setup_mutex;
std::string g_detected_for;                   // guarded by g_setup_mutex
std::shared_ptr<const CgroupSetup> g_setup;  // guarded by g_setup_mutex
}  // namespace

std::shared_ptr<const CgroupSetup> cgroup_setup() {
  std::string parent;
  {
    std::lock_guard lock(g_parent_mutex);
    parent = g_parent;
  }
  std::lock_guard lock(g_setup_mutex);
  if (!g_setup || g_detected_for != parent) {
    g_setup = detect(parent);
    g_detected_for = parent;
  }
  return g_setup;
}

void disable_cgroups(const std::string& problem) {
  auto none = std::make_shared<CgroupSetup>();
  none->problem = problem;
  std::lock_guard lock(g_setup_mutex);
  if (g_setup && g_setup->version == Version::none) return;
  g_setup = none;  // until the parent name changes
}

std::unique_ptr<JobCgroup> JobCgroup::create(int64_t memory_bytes, int max_processes, std::string& problem) {
  auto setup = cgroup_setup();
  if (setup->version == Version::none) {
    problem = setup->problem;
    return nullptr;
  }
  std::unique_ptr<JobCgroup> job(new JobCgroup());
  job->m_setup = setup;
  bool v2 = setup->version == Version::v2;
  // Unique within this process; a folder left by an earlier process with the same pid is skipped.
  for (int attempt = 0;; ++attempt) {
    std::string name = "job-" + std::to_string(getpid()) + "-" + std::to_string(++g_job_counter);
    job->m_memory = setup->memory_parent / name;
    job->m_pids = setup->pids_parent / name;
    job->m_pids_rel = setup->pids_parent_rel + "/" + name;
    if (mkdir(job->m_memory.c_str(), 0755) == 0) break;
    int err = errno;
    if (err != EEXIST || attempt > 100) {
      problem = "cannot create " + job->m_memory.string() + ": " + errno_text(err);
      job->m_memory.clear();
      job->m_pids.clear();
      return nullptr;
    }
  }
  if (!v2 && mkdir(job->m_pids.c_str(), 0755) != 0) {
    problem = "cannot create " + job->m_pids.string() + ": " + errno_text(errno);
    job->m_pids.clear();
    return nullptr;  // the destructor removes the memory folder
  }
  auto set = [&](const fs::path& file, const std::string& value, bool required) {
    int err = write_text(file, value);
    if (err != 0 && required) problem = "cannot write " + value + " to " + file.string() + ": " + errno_text(err);
    return err == 0 || !required;
  };
  std::string memory = memory_bytes > 0 ? std::to_string(memory_bytes) : (v2 ? "max" : "-1");
  std::string processes = max_processes > 0 ? std::to_string(max_processes) : "max";
  bool ok = true;
  if (v2) {
    ok = set(job->m_memory / "memory.max", memory, true) && set(job->m_memory / "memory.swap.max", "0", false) &&
         set(job->m_memory / "memory.oom.group", "1", false) && set(job->m_pids / "pids.max", processes, true);
  } else {
    ok = set(job->m_memory / "memory.limit_in_bytes", memory, true) &&
         set(job->m_memory / "memory.memsw.limit_in_bytes", memory, false) &&
         set(job->m_pids / "pids.max", processes, true);
  }
  if (!ok) return nullptr;
  for (const fs::path& dir : v2 ? std::vector<fs::path>{job->m_memory} : std::vector<fs::path>{job->m_memory, job->m_pids}) {
    int fd = open((dir / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      problem = "cannot open " + (dir / "cgroup.procs").string() + ": " + errno_text(errno);
      return nullptr;
    }
    job->m_procs_fds.push_back(fd);
  }
  return job;
}

JobCgroup::Usage JobCgroup::usage() const {
  Usage u;
  if (m_setup->version == Version::v2) {
    std::string events = slurp(m_memory / "memory.events");
    u.oom_killed = keyed_value(events, "oom_kill") > 0 || keyed_value(events, "oom_group_kill") > 0;
    std::string peak = slurp(m_memory / "memory.peak");
    u.memory_peak = peak.empty() ? 0 : std::strtoll(peak.c_str(), nullptr, 10);
  } else {
    int64_t kills = keyed_value(slurp(m_memory / "memory.oom_control"), "oom_kill");
    // Kernels before 4.13 do not count OOM kills; then hitting the limit at all is the sign.
    u.oom_killed = kills >= 0 ? kills > 0 : std::strtoll(slurp(m_memory / "memory.failcnt").c_str(), nullptr, 10) > 0;
    u.memory_peak = std::strtoll(slurp(m_memory / "memory.max_usage_in_bytes").c_str(), nullptr, 10);
  }
  u.process_limit_hit = keyed_value(slurp(m_pids / "pids.events"), "max") > 0;
  return u;
}

void JobCgroup::kill_all() const {
  if (m_pids.empty()) return;
  if (m_setup->version == Version::v2 && m_setup->v2_kill && write_text(m_pids / "cgroup.kill", "1") == 0) return;
  // Pid by pid: open a pidfd, then check that this very process is in our cgroup (a pid read
  // from cgroup.procs may have exited and been reused meanwhile), then signal the pidfd.
  for (int round = 0; round < 50; ++round) {
    auto pids = pids_in(m_pids);
    if (pids.empty()) return;
    for (pid_t pid : pids) {
      int fd = pidfd_open(pid);
      if (fd < 0) continue;
      if (member_of(pid, m_setup->version, m_pids_rel)) pidfd_kill(fd);
      close(fd);
    }
  }
}

bool JobCgroup::process_limit_hit() const {
  return !m_pids.empty() && keyed_value(slurp(m_pids / "pids.events"), "max") > 0;
}

std::vector<pid_t> JobCgroup::members() const { return m_pids.empty() ? std::vector<pid_t>{} : pids_in(m_pids); }

bool JobCgroup::wait_empty(std::chrono::milliseconds bound) const {
  auto deadline = std::chrono::steady_clock::now() + bound;
  auto pause = std::chrono::microseconds(200);
  for (;;) {
    bool empty = m_setup->version == Version::v2 ? keyed_value(slurp(m_pids / "cgroup.events"), "populated") == 0
                                                  : pids_in(m_pids).empty() && pids_in(m_memory).empty();
    if (empty) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(10));
  }
}

JobCgroup::~JobCgroup() {
  for (int fd : m_procs_fds) close(fd);
  if (!m_pids.empty()) {
    kill_all();
    wait_empty(std::chrono::milliseconds(2000));
  }
  for (const fs::path& dir : {m_pids, m_memory}) {
    if (dir.empty()) continue;
    // An exiting process may keep the folder busy for a moment after cgroup.procs is empty.
    for (int attempt = 0; attempt < 200 && rmdir(dir.c_str()) != 0 && (errno == EBUSY || errno == EAGAIN); ++attempt) {
      if (attempt % 20 == 19) kill_all();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
}

}  // namespace detail
}  // namespace kwb::sandbox
