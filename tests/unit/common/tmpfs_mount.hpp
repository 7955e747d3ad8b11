#pragma once
// A small tmpfs mounted for one test (full-disk cases): needs root or CAP_SYS_ADMIN; where the
// mount is refused the test skips with the reason (TMPFS_OR_SKIP).
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace kwb::test {

class TmpfsMount {
 public:
  explicit TmpfsMount(uint64_t bytes) {
    char templ[] = "/tmp/kwb-tmpfs-XXXXXX";
    if (!mkdtemp(templ)) {
      m_error = std::string("mkdtemp: ") + std::strerror(errno);
      return;
    }
    m_path = templ;
    std::string opts = "size=" + std::to_string(bytes) + ",mode=0755";
    if (::mount("tmpfs", m_path.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, opts.c_str()) != 0)
      m_error = std::string("mount -t tmpfs: ") + std::strerror(errno);
    else
      m_mounted = true;
  }
  ~TmpfsMount() {
    if (m_mounted) ::umount2(m_path.c_str(), MNT_DETACH);
    if (!m_path.empty()) ::rmdir(m_path.c_str());
  }
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;

  bool mounted() const { return m_mounted; }
  const std::string& error() const { return m_error; }
  const std::filesystem::path& path() const { return m_path; }
  std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

  // Writes `file` until the file system has no byte left (ENOSPC); returns the bytes written.
  static uint64_t fill(const std::filesystem::path& file) {
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return 0;
    uint64_t total = 0;
    std::vector<char> buf(1 << 16, 'x');
    for (size_t chunk = buf.size(); chunk >= 1; chunk /= 2)
      while (true) {
        ssize_t n = ::write(fd, buf.data(), chunk);
        if (n <= 0) break;
        total += uint64_t(n);
      }
    ::close(fd);
    return total;
  }

 private:
  std::filesystem::path m_path;
  bool m_mounted = false;
  std::string m_error;
};

}  // namespace kwb::test

#define TMPFS_OR_SKIP(m)                                                                                   \
  if (!(m).mounted())                                                                                      \
  GTEST_SKIP() << "cannot mount a small tmpfs here (" << (m).error()                                      \
               << "): the full-disk case needs root or CAP_SYS_ADMIN; run it as root to cover defect 1"
