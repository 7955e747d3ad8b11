// The cgroup hierarchy (cgroup.hpp): which one is mounted, the parent folder of the job cgroups
// made ready (created, controllers enabled, stale jobs removed), and what it is called. The job
// cgroups themselves are job_cgroup.cpp.
#include "launcher/cgroup.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>
#include <string_view>

#include "launcher/cgroup_files.hpp"
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

}  // namespace detail
}  // namespace kwb::sandbox
