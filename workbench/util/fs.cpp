#include "util/fs.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
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

Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view data) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  auto tmp = path;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + random_hex(4);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return fail(tmp.string(), std::string("cannot create: ") + std::strerror(errno));
    out.write(data.data(), std::streamsize(data.size()));
    if (!out) return fail(tmp.string(), "write failed");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return fail(path.string(), "rename failed: " + ec.message());
  }
  return {};
}

Result<std::filesystem::path> make_unique_dir(const std::filesystem::path& parent, std::string_view prefix) {
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) return fail(parent.string(), "cannot create directory: " + ec.message());
  for (int attempt = 0; attempt < 16; ++attempt) {
    auto dir = parent / (std::string(prefix) + random_hex(8));
    if (std::filesystem::create_directory(dir, ec)) return dir;
  }
  return fail(parent.string(), "cannot create a unique directory");
}

}  // namespace kwb::util
