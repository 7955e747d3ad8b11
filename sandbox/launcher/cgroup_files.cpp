// Small cgroup and /proc files (cgroup_files.hpp).
#include "launcher/cgroup_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

namespace kwb::sandbox::detail {

std::string slurp(const std::filesystem::path& path) {
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

int write_text(const std::filesystem::path& path, std::string_view text) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t n;
  while ((n = write(fd, text.data(), text.size())) < 0 && errno == EINTR) {
  }
  int err = n == static_cast<ssize_t>(text.size()) ? 0 : (n < 0 ? errno : EIO);
  close(fd);
  return err;
}

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

}  // namespace kwb::sandbox::detail
