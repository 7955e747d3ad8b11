// Builds the bubblewrap command line (docs/security.md "What is isolated and how"). Pure function
// of the request, so tests can check the flags and their order without running anything.
#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string_view>
#include <system_error>

#include "launcher/sandbox.hpp"

namespace kwb::sandbox {

namespace {

void add(std::vector<std::string>& argv, std::initializer_list<std::string_view> items) {
  for (std::string_view item : items) argv.emplace_back(item);
}

constexpr const char* k_readonly_proc[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/fs", "/proc/irq", "/proc/bus"};
constexpr const char* k_masked_proc[] = {"/proc/kcore", "/proc/keys", "/proc/timer_list", "/proc/sched_debug",
                                         "/proc/latency_stats", "/proc/kallsyms"};

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

}  // namespace

std::vector<std::filesystem::path> gpu_device_nodes(const std::filesystem::path& dev_dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> nodes;
  std::error_code ec;
  for (const char* name : {"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools"}) {
    if (fs::exists(dev_dir / name, ec)) nodes.push_back(dev_dir / name);
  }
  std::vector<unsigned long> numbers;  // nvidia0, nvidia1, ... in numeric order
  for (fs::directory_iterator it(dev_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::string_view rest(name);
    if (rest.starts_with("nvidia") && all_digits(rest.substr(6))) numbers.push_back(std::stoul(name.substr(6)));
  }
  std::sort(numbers.begin(), numbers.end());
  for (unsigned long n : numbers) nodes.push_back(dev_dir / ("nvidia" + std::to_string(n)));
  return nodes;
}

std::vector<std::string> bwrap_argv(const Request& req, const BwrapSetup& setup) {
  const Profile& profile = req.profile;
  std::vector<std::string> argv{req.bwrap.string()};
  // Namespaces and identity. Without --unshare-user + --cap-drop ALL, bwrap run as root keeps
  // every capability; --disable-userns stops the command from making a user namespace of its own.
  add(argv, {"--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL",
             "--die-with-parent", "--new-session", "--uid", "65534", "--gid", "65534"});
  // bwrap applies --clearenv and --setenv while parsing, so --clearenv must come first.
  add(argv, {"--clearenv"});
  for (const auto& [name, value] : req.env) add(argv, {"--setenv", name, value});
  if (setup.seccomp_fd >= 0) add(argv, {"--seccomp", std::to_string(setup.seccomp_fd)});
  if (setup.json_status_fd >= 0) add(argv, {"--json-status-fd", std::to_string(setup.json_status_fd)});

  // The file system: read-only /usr with the merged-/usr symlinks; no /etc, no /home.
  add(argv, {"--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
             "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin", "--proc", "/proc"});
  // No /etc, but for two files of paths: the alternatives' symlinks (Ubuntu's /usr/local/cuda is
  // /etc/alternatives/cuda -> /usr/local/cuda-13.0; /usr/bin/c++ -> /etc/alternatives/c++) and
  // the dynamic linker's cache (libraries in folders it lists, e.g. /usr/local/nvidia/lib64).
  add(argv, {"--ro-bind-try", "/etc/alternatives", "/etc/alternatives", "--ro-bind-try", "/etc/ld.so.cache",
             "/etc/ld.so.cache"});
  // The sandbox's uid 65534 is the host's uid 0 (bwrap maps it to the uid that started it), and
  // the kernel lets that uid write sysctls by file permissions alone: /proc/sys/kernel/
  // core_pattern was writable, which is code execution on the host. bwrap covers /proc/irq and
  // /proc/bus only, so make the kernel's knobs read-only and hide what only leaks (the paths
  // Docker masks). The sources are the host's: the same global objects, read-only.
  for (const char* path : k_readonly_proc) add(argv, {"--ro-bind-try", path, path});
  std::error_code ec;
  for (const char* path : k_masked_proc) {
    if (std::filesystem::exists(path, ec)) add(argv, {"--ro-bind", "/dev/null", path});  // bwrap cannot create one in /proc
  }
  add(argv, {"--dev", "/dev"});
  if (profile.gpu) {
    for (const auto& node : gpu_device_nodes(setup.dev_dir)) {
      const std::string name = node.filename().string();
      const bool numbered = name.size() > 6 && all_digits(std::string_view(name).substr(6));
      if (numbered && profile.gpu_minor >= 0 && name != "nvidia" + std::to_string(profile.gpu_minor)) continue;
      add(argv, {"--dev-bind", node.string(), "/dev/" + name});
    }
    add(argv, {"--ro-bind", "/sys", "/sys"});
  }
  add(argv, {"--size", std::to_string(profile.tmp_bytes), "--tmpfs", "/tmp"});
  for (const Bind& bind : req.binds) {
    add(argv, {bind.writable ? "--bind" : "--ro-bind", bind.host.string(), bind.inside});
  }
  // The job dir last: later mounts shadow earlier ones, so nothing can be mounted over /job.
  // Read-only for runs: a candidate cannot plant links or fill the host's disk through it.
  add(argv, {profile.job_writable ? "--bind" : "--ro-bind", req.job_dir.string(), "/job"});
  // bwrap's root and /dev are tmpfs without a size limit; make them read-only once every mount
  // point exists (the remount is not recursive: /tmp, /job, binds and device nodes keep theirs).
  add(argv, {"--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/job", "--"});
  argv.insert(argv.end(), req.argv.begin(), req.argv.end());
  return argv;
}

}  // namespace kwb::sandbox
