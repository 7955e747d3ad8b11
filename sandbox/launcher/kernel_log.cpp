#include "launcher/kernel_log.hpp"

#include <fcntl.h>
#include <poll.h>
#include <seccomp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace kwb::sandbox::detail {

namespace {

// The text after "key=" up to the next space, or "".
std::string_view field(std::string_view record, std::string_view key) {
  for (size_t at = record.find(key); at != std::string_view::npos; at = record.find(key, at + 1)) {
    if (at == 0 || record[at - 1] == ' ') {
      auto value = record.substr(at + key.size());
      return value.substr(0, value.find(' '));
    }
  }
  return {};
}

}  // namespace

int open_kernel_log() {
  int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  if (lseek(fd, 0, SEEK_END) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

std::string seccomp_kills_since(int fd, long first_pid) {
  if (fd < 0) return "";
  std::vector<std::string> names;
  char buf[8192];
  // The kernel's audit thread prints the record a moment after the kill: when none of this
  // sandbox's is there yet, wait for it a little (only after a SIGSYS, so no one else pays).
  int grace_ms = 100;
  for (int records = 0; records < 100000; ++records) {
    ssize_t n = read(fd, buf, sizeof buf);  // one record per read
    if (n < 0 && (errno == EINTR || errno == EPIPE)) continue;  // EPIPE: records were overwritten
    if (n < 0 && errno == EAGAIN && names.empty() && grace_ms > 0) {
      pollfd p{fd, POLLIN, 0};
      int waited = poll(&p, 1, 20);
      grace_ms -= 20;
      if (waited >= 0) continue;
    }
    if (n <= 0) break;                                           // EAGAIN: no newer record
    std::string_view record(buf, static_cast<size_t>(n));
    if (record.find("type=1326") == std::string_view::npos || field(record, "sig=") != "31") continue;
    // Processes of this sandbox were forked after bwrap: an older pid is some other process.
    // (After a pid wrap-around this drops the right record too; the name then stays unknown.)
    if (std::strtol(std::string(field(record, "pid=")).c_str(), nullptr, 10) < first_pid) continue;
    std::string nr(field(record, "syscall="));
    std::string arch(field(record, "arch="));
    if (nr.empty()) continue;
    std::string name = "system call " + nr;
    if (char* resolved = seccomp_syscall_resolve_num_arch(static_cast<uint32_t>(std::strtoul(arch.c_str(), nullptr, 16)),
                                                          std::atoi(nr.c_str()))) {
      name = resolved;
      std::free(resolved);
    }
    bool seen = false;
    for (const auto& n2 : names) seen = seen || n2 == name;
    if (!seen) names.push_back(name);
  }
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : " or ") + name;
  return out;
}

}  // namespace kwb::sandbox::detail
