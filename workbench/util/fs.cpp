#include "util/fs.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <utility>
#include <vector>
#include <sstream>

#include "util/random.hpp"

namespace kwb::util {

Result<std::string> read_file(const std::filesystem::path& path) {
  if (std::error_code ec; std::filesystem::is_directory(path, ec)) return fail(path.string(), "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(path.string(), std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<std::string> read_file_nofollow(const std::filesystem::path& path, size_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fail(path.string(), std::string("cannot open: ") + std::strerror(errno));
  std::string out;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return fail(path.string(), std::string("read failed: ") + std::strerror(e));
    }
    if (n == 0) break;
    if (out.size() + size_t(n) > max_bytes) {
      ::close(fd);
      return fail(path.string(), "larger than " + std::to_string(max_bytes) + " bytes");
    }
    out.append(buf, size_t(n));
  }
  ::close(fd);
  return out;
}

namespace {

ErrorKind kind_of_errno(int e) { return e == ENOSPC || e == EDQUOT ? ErrorKind::storage_full : ErrorKind::generic; }

// temp file + rename; every write and the close checked (a full disk must not leave a truncated
// file under the final name); with `durable`, the data and the rename are fsync'ed.
Result<void> write_atomic(const std::filesystem::path& path, std::string_view data, bool durable) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec && kind_of_errno(ec.value()) == ErrorKind::storage_full)
    return fail(ErrorKind::storage_full, path.parent_path().string(), "cannot create directory: " + ec.message());
  auto tmp = path;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + random_hex(4);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    int e = errno;
    return fail(kind_of_errno(e), tmp.string(), std::string("cannot create: ") + std::strerror(e));
  }
  auto give_up = [&](const char* what, int e) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return fail(kind_of_errno(e), path.string(), std::string(what) + ": " + std::strerror(e));
  };
  for (size_t done = 0; done < data.size();) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return give_up("write failed", n < 0 ? errno : ENOSPC);
    done += size_t(n);
  }
  if (durable && ::fsync(fd) != 0) return give_up("fsync failed", errno);
  if (::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return fail(kind_of_errno(e), path.string(), std::string("close failed: ") + std::strerror(e));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return fail(kind_of_errno(e), path.string(), std::string("rename failed: ") + std::strerror(e));
  }
  if (durable && path.has_parent_path()) {
    int dir = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }
  return {};
}

}  // namespace

Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view data) {
  return write_atomic(path, data, false);
}

Result<void> write_file_durable(const std::filesystem::path& path, std::string_view data) {
  return write_atomic(path, data, true);
}

namespace {

// Folders made by make_unique_dir are claimed by this process: a shared flock on the folder,
// held (close-on-exec) until the folder is gone, so that a later process can tell the folders of
// a killed one (nothing holds the lock) from live ones (dir_in_use).
std::mutex g_claims_mutex;
std::vector<std::pair<std::filesystem::path, int>> g_claims;

void claim(const std::filesystem::path& dir) {
  std::lock_guard lock(g_claims_mutex);
  std::error_code ec;
  std::erase_if(g_claims, [&](const auto& c) {
    if (std::filesystem::exists(c.first, ec)) return false;
    ::close(c.second);
    return true;
  });
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
    ::close(fd);
    return;
  }
  g_claims.emplace_back(dir, fd);
}

}  // namespace

Result<std::filesystem::path> make_unique_dir(const std::filesystem::path& parent, std::string_view prefix) {
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) return fail(kind_of_errno(ec.value()), parent.string(), "cannot create directory: " + ec.message());
  for (int attempt = 0; attempt < 16; ++attempt) {
    auto dir = parent / (std::string(prefix) + random_hex(8));
    if (std::filesystem::create_directory(dir, ec)) {
      claim(dir);
      return dir;
    }
    if (ec.value() == ENOSPC || ec.value() == EDQUOT)
      return fail(ErrorKind::storage_full, parent.string(), "cannot create a directory: " + ec.message());
  }
  return fail(parent.string(), "cannot create a unique directory");
}

bool dir_in_use(const std::filesystem::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0;
  ::close(fd);
  return held;
}

}  // namespace kwb::util
