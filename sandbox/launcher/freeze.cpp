// Process::freeze/thaw (sandbox.hpp): stops a whole sandbox between the blocks of an interleaved
// comparison, so a candidate cannot leave threads or processes running into the incumbent's
// timing. Found through /proc (bwrap's descendants); a thread counts as stopped in state T or t.
#include <dirent.h>
#include <signal.h>
#include <time.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "launcher/sandbox.hpp"

namespace kwb::sandbox {

namespace {

// pid -> (parent pid, state) of every process, from /proc/<pid>/stat.
struct ProcInfo {
  pid_t ppid = 0;
  char state = '?';
};

bool read_stat(const std::string& path, ProcInfo& out) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return false;
  auto close = line.rfind(')');  // the command name may hold blanks and parentheses
  if (close == std::string::npos) return false;
  std::istringstream rest(line.substr(close + 1));
  rest >> out.state >> out.ppid;
  return bool(rest);
}

std::map<pid_t, ProcInfo> all_processes() {
  std::map<pid_t, ProcInfo> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end) continue;
    ProcInfo info;
    if (read_stat(std::string("/proc/") + e->d_name + "/stat", info)) out[pid_t(pid)] = info;
  }
  closedir(d);
  return out;
}

// The children of every thread of `pid` from /proc/<pid>/task/<tid>/children; false when the
// kernel does not offer those files (CONFIG_PROC_CHILDREN).
bool children_of(pid_t pid, std::vector<pid_t>& out) {
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (!d) return true;  // exited
  bool offered = true;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream in(dir + "/" + e->d_name + "/children");
    if (!in) {
      offered = false;
      continue;
    }
    for (long c; in >> c;) out.push_back(pid_t(c));
  }
  closedir(d);
  return offered;
}

// The root and all its descendants: walked down through the children files where the kernel has
// them (a few reads per sandbox), else from every process's parent in /proc/*/stat.
std::set<pid_t> tree_of(pid_t root) {
  std::set<pid_t> tree;
  std::vector<pid_t> todo{root};
  bool walked = true;
  while (!todo.empty() && walked) {
    pid_t p = todo.back();
    todo.pop_back();
    if (!tree.insert(p).second) continue;
    walked = children_of(p, todo);
  }
  if (walked) return tree;
  tree.clear();
  auto procs = all_processes();
  std::multimap<pid_t, pid_t> children;
  for (const auto& [pid, info] : procs) children.emplace(info.ppid, pid);
  todo = {root};
  while (!todo.empty()) {
    pid_t p = todo.back();
    todo.pop_back();
    if (!tree.insert(p).second) continue;
    auto [a, b] = children.equal_range(p);
    for (auto it = a; it != b; ++it) todo.push_back(it->second);
  }
  return tree;
}

// Every thread of `pid` is stopped (or the process is gone or a zombie).
bool all_threads_stopped(pid_t pid) {
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (!d) return true;  // exited
  bool stopped = true;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    ProcInfo info;
    if (!read_stat(dir + "/" + e->d_name + "/stat", info)) continue;
    if (info.state != 'T' && info.state != 't' && info.state != 'Z' && info.state != 'X') stopped = false;
  }
  closedir(d);
  return stopped;
}

}  // namespace

util::Result<void> Process::freeze() {
  const pid_t root = pid();
  if (root <= 0) return util::fail("sandbox", "no process to freeze");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  std::set<pid_t> signalled;
  while (true) {
    auto tree = tree_of(root);
    for (pid_t p : tree)
      if (signalled.insert(p).second) ::kill(p, SIGSTOP);
    bool settled = true;
    for (pid_t p : tree)
      if (!all_threads_stopped(p)) settled = false;
    // Settled only when a fresh look finds no process that was not signalled yet.
    if (settled) {
      bool grown = false;
      for (pid_t p : tree_of(root)) grown |= !signalled.contains(p);
      if (!grown) return {};
    }
    if (std::chrono::steady_clock::now() > deadline) {
      thaw();
      return util::fail("sandbox", "its processes could not all be stopped within 2 s");
    }
    timespec pause{0, 200000};  // the stop signals are delivered asynchronously
    nanosleep(&pause, nullptr);
  }
}

void Process::thaw() {
  const pid_t root = pid();
  if (root <= 0) return;
  for (pid_t p : tree_of(root)) ::kill(p, SIGCONT);
}

}  // namespace kwb::sandbox
