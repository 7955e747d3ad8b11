// Decoy host secrets watched with inotify (decoys.hpp).
#include "launcher/decoys.hpp"

#include <sys/inotify.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace kwb::sandbox::detail {

namespace {

constexpr const char* k_where = "sandbox decoys";

// Plausible contents: a reader that gets this far learns nothing, and a leak of it is recognisable.
std::string fake_contents(const std::string& inside) {
  if (inside.ends_with("shadow"))
    return "root:$6$kwbdecoy$KWB-DECOY-NOT-A-REAL-HASH:19700:0:99999:7:::\n";
  if (inside.find("ssh") != std::string::npos)
    return "-----BEGIN OPENSSH PRIVATE KEY-----\nKWB-DECOY-NOT-A-REAL-KEY\n-----END OPENSSH PRIVATE KEY-----\n";
  return "KWB-DECOY-NOT-A-REAL-SECRET\n";
}

}  // namespace

util::Result<std::unique_ptr<Decoys>> Decoys::plant(const std::vector<std::string>& inside_paths) {
  std::unique_ptr<Decoys> d(new Decoys());
  std::string templ = (std::filesystem::temp_directory_path() / "kwb-decoys-XXXXXX").string();
  if (!mkdtemp(templ.data())) return util::fail(k_where, "mkdtemp " + templ + ": " + std::strerror(errno));
  d->m_dir = templ;
  d->m_inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (d->m_inotify < 0) return util::fail(k_where, std::string("inotify_init1: ") + std::strerror(errno));
  int n = 0;
  for (const std::string& inside : inside_paths) {
    if (!inside.starts_with('/') || d->m_host_by_inside.contains(inside))
      return util::fail(k_where, "decoy path '" + inside + "' must be absolute and listed once");
    auto host = d->m_dir / std::to_string(n++);
    {
      std::ofstream out(host, std::ios::binary);
      out << fake_contents(inside);
      if (!out.flush()) return util::fail(k_where, "cannot write " + host.string());
    }
    // Written before the watch is added: from here on only the sandbox touches the file.
    int wd = inotify_add_watch(d->m_inotify, host.c_str(), IN_OPEN | IN_ACCESS);
    if (wd < 0) return util::fail(k_where, "inotify_add_watch " + host.string() + ": " + std::strerror(errno));
    d->m_inside_by_watch[wd] = inside;
    d->m_host_by_inside[inside] = host;
  }
  return d;
}

Decoys::~Decoys() {
  if (m_inotify >= 0) ::close(m_inotify);
  std::error_code ec;
  if (!m_dir.empty()) std::filesystem::remove_all(m_dir, ec);
}

std::vector<Bind> Decoys::binds() const {
  std::vector<Bind> out;
  for (const auto& [inside, host] : m_host_by_inside) out.push_back({host, inside, false});
  return out;
}

std::vector<std::string> Decoys::opened() {
  alignas(inotify_event) std::array<char, 4096> buf;
  for (;;) {
    ssize_t n = ::read(m_inotify, buf.data(), buf.size());
    if (n <= 0) break;  // EAGAIN: nothing more queued
    for (ssize_t at = 0; at < n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(buf.data() + at);
      if (auto it = m_inside_by_watch.find(ev->wd); it != m_inside_by_watch.end() && (ev->mask & (IN_OPEN | IN_ACCESS)))
        m_opened.insert(it->second);
      at += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
    }
  }
  return {m_opened.begin(), m_opened.end()};
}

}  // namespace kwb::sandbox::detail
