#pragma once
// A cgroup per sandbox for memory and process count (docs/security.md "Cgroups"). The hierarchy is
// detected once per process: cgroup v1 when the memory and pids controllers are mounted as v1
// hierarchies (the development machine), else v2 when the unified hierarchy offers memory and pids
// (the GPU machine). Job cgroups live in a parent folder, by default "kwb" under each
// hierarchy's root:
//   v1: /sys/fs/cgroup/memory/kwb/<job>, /sys/fs/cgroup/pids/kwb/<job>
//   v2: /sys/fs/cgroup/kwb/<job> (memory and pids enabled in the subtree_control on the way)
// The spawned child writes "0" into the job's cgroup.procs before it execs bwrap, so bwrap and
// everything it starts are inside. After the sandbox ends, the trusted side reads whether the
// OOM killer fired or fork() hit the process limit, kills anything left and removes the folder.
// When cgroups cannot be used (no permission, read-only mount, controllers missing), spawn()
// falls back to rlimits and says why once on stderr.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace kwb::sandbox::detail {

struct CgroupSetup {
  enum class Version { none, v1, v2 } version = Version::none;
  // Parent folders of the job cgroups: one (v2) or two (v1: memory, pids).
  std::filesystem::path memory_parent, pids_parent;
  // How /proc/<pid>/cgroup spells the parents (relative to the cgroup namespace root).
  std::string memory_parent_rel, pids_parent_rel;
  bool v2_kill = false;  // v2 cgroup.kill exists (kernel 5.14+)
  std::string problem;   // why cgroups are not used (version == none)
  std::string describe() const;  // "cgroup v1 (/sys/fs/cgroup/memory/kwb, ...)" or the problem
};

// Detects (once per parent name, thread-safe) and returns the set-up (set_cgroup_parent()).
std::shared_ptr<const CgroupSetup> cgroup_setup();
// Cgroups were detected but a process could not be moved into one (a delegation boundary, say):
// stop using them until the parent name changes.
void disable_cgroups(const std::string& problem);

class JobCgroup {
 public:
  // Creates a job cgroup with the given limits; null with `problem` set when that fails.
  static std::unique_ptr<JobCgroup> create(int64_t memory_bytes, int max_processes, std::string& problem);
  ~JobCgroup();  // kill_all(), wait until empty (bounded), remove the folders
  JobCgroup(const JobCgroup&) = delete;
  JobCgroup& operator=(const JobCgroup&) = delete;

  // Open O_WRONLY | O_CLOEXEC: the child writes "0" to each to move itself in.
  const std::vector<int>& procs_fds() const { return m_procs_fds; }

  struct Usage {
    bool oom_killed = false;        // the OOM killer killed a process of this cgroup
    bool process_limit_hit = false; // fork/clone failed at pids.max
    int64_t memory_peak = 0;        // bytes, 0 when unknown
  };
  Usage usage() const;
  // SIGKILL to every process in the cgroup (cgroup.kill on v2; pid by pid, verified through a
  // pidfd, on v1). Safe to call at any time and from any thread.
  void kill_all() const;
  // fork/clone failed at pids.max at least once so far (reads only pids.events; cheap).
  bool process_limit_hit() const;
  // Pids of the processes in the cgroup now.
  std::vector<pid_t> members() const;
  // True once no process is left (waits at most `bound`).
  bool wait_empty(std::chrono::milliseconds bound) const;

 private:
  JobCgroup() = default;
  std::shared_ptr<const CgroupSetup> m_setup;
  std::filesystem::path m_memory, m_pids;  // equal on v2
  std::string m_pids_rel;                  // as /proc/<pid>/cgroup spells it
  std::vector<int> m_procs_fds;
};

}  // namespace kwb::sandbox::detail
