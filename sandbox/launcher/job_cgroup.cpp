// Job cgroups (cgroup.hpp): created with their limits under the detected parent (cgroup.cpp),
// their usage read, their processes killed, their folders removed.
#include "launcher/cgroup.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <string_view>
#include <thread>

#include "launcher/cgroup_files.hpp"
#include "launcher/process_impl.hpp"

namespace kwb::sandbox::detail {

namespace {

namespace fs = std::filesystem;
using Version = CgroupSetup::Version;

std::string errno_text(int err) { return std::strerror(err); }

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

}  // namespace kwb::sandbox::detail
