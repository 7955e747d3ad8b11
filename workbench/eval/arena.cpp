#include "eval/arena.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/parallel.hpp"
#include "util/random.hpp"

namespace kwb::eval {

bool same_layout(const std::vector<TensorSlot>& a, const std::vector<TensorSlot>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].role != b[i].role || a[i].dtype != b[i].dtype || a[i].shape != b[i].shape ||
        a[i].bytes != b[i].bytes || a[i].misalign != b[i].misalign)
      return false;
  return true;
}

util::Result<SharedArena> SharedArena::create() {
  int fd = ::memfd_create("kwb-arena", MFD_CLOEXEC);
  if (fd < 0) return util::fail("arena", std::string("memfd_create failed: ") + std::strerror(errno));
  SharedArena a;
  a.m_fd = fd;
  return a;
}

SharedArena::SharedArena(SharedArena&& o) noexcept { *this = std::move(o); }

SharedArena& SharedArena::operator=(SharedArena&& o) noexcept {
  if (this != &o) {
    release();
    m_fd = o.m_fd;
    m_base = o.m_base;
    m_size = o.m_size;
    m_mapped = o.m_mapped;
    m_file_size = o.m_file_size;
    m_slots = std::move(o.m_slots);
    m_pattern = std::move(o.m_pattern);
    m_guards = std::move(o.m_guards);
    o.m_fd = -1;
    o.m_base = nullptr;
    o.m_size = 0;
    o.m_mapped = 0;
    o.m_file_size = 0;
  }
  return *this;
}

SharedArena::~SharedArena() { release(); }

void SharedArena::release() {
  if (m_base) ::munmap(m_base, m_mapped);
  if (m_fd >= 0) ::close(m_fd);
  m_base = nullptr;
  m_fd = -1;
}

util::Result<void> SharedArena::layout(std::vector<TensorSlot>& slots) {
  size_t off = 0;
  m_guards.clear();
  for (auto& s : slots) {
    // Every slot's guard starts on a 64-byte boundary; the data `misalign` bytes (< 64) after the
    // guard's end, the guard growing by as much.
    const size_t shift = s.misalign % 64;
    m_guards.push_back({off, k_guard + shift});
    off += k_guard + shift;
    s.offset = off;
    off += s.bytes;
    // The guard after a tensor starts right at its last byte + 1 (no slack for small overruns).
    size_t tail = (off + 63) / 64 * 64 - off;
    m_guards.push_back({off, tail + k_guard});
    off += tail + k_guard;
  }
  m_slots = slots;
  // A mapping that covers the layout is kept (the file only grows): unmapping and mapping
  // hundreds of MB for every workload held the daemon's address-space lock against the page
  // faults of every other evaluation's threads.
  m_size = off;
  if (m_base && off <= m_mapped) return {};
  if (m_base) ::munmap(m_base, m_mapped);
  m_base = nullptr;
  m_mapped = 0;
  // The file only grows: its pages stay allocated for the next workload (and, in the daemon's
  // pooled GPU session, the next evaluation), and MAP_POPULATE maps them in one go instead of a
  // page fault per 4 KiB on first touch.
  if (off > m_file_size) {
    if (::ftruncate(m_fd, off_t(off)) != 0)
      return util::fail("arena", std::string("cannot size shared buffers: ") + std::strerror(errno));
    m_file_size = off;
  }
  void* p = ::mmap(nullptr, off, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, m_fd, 0);
  if (p == MAP_FAILED) return util::fail("arena", std::string("mmap failed: ") + std::strerror(errno));
  m_base = static_cast<char*>(p);
  m_mapped = off;
  return {};
}

void SharedArena::arm_guards(uint64_t seed) {
  util::Rng rng(seed);
  m_pattern.clear();
  for (auto [off, len] : m_guards) {
    for (size_t i = 0; i < len; ++i) {
      auto b = static_cast<unsigned char>(rng.next() >> 56);
      m_base[off + i] = char(b);
      m_pattern.push_back(b);
    }
  }
}

std::optional<std::string> SharedArena::check_guards() const {
  size_t k = 0;
  for (size_t g = 0; g < m_guards.size(); ++g) {
    auto [off, len] = m_guards[g];
    size_t first = len, last = 0, changed = 0;
    for (size_t i = 0; i < len; ++i, ++k) {
      if (static_cast<unsigned char>(m_base[off + i]) != m_pattern[k]) {
        if (first == len) first = i;
        last = i;
        ++changed;
      }
    }
    if (changed == 0) continue;
    const TensorSlot& s = m_slots[g / 2];
    std::string role = s.role == core::Role::in ? "input " : "output ";
    if (g % 2 == 0)
      return "out-of-bounds write: " + std::to_string(changed) + " byte(s) changed up to " +
             std::to_string(len - first) + " bytes before the start of " + role + s.name;
    return "out-of-bounds write: " + std::to_string(changed) + " byte(s) changed up to " +
           std::to_string(last + 1) + " bytes past the end of " + role + s.name + " (" +
           std::to_string(s.count) + " elements)";
  }
  return std::nullopt;
}

void SharedArena::poison_outputs(unsigned char byte) {
  for (const auto& s : m_slots)
    if (s.role != core::Role::in) util::parallel_fill(m_base + s.offset, byte, s.bytes);
}

}  // namespace kwb::eval
