// The device copy of the shared arena: one allocation mirroring the host's offsets (guard zones
// included), or, in a session under compute-sanitizer, one allocation per tensor of exactly its
// size (gpu_runner.hpp m_separate_mode; docs/profiles.md "Where the tools run").
#include <cstdlib>
#include <cstring>

#include "gpu_runner/gpu_runner.hpp"

namespace kwb::gpu {

CUdeviceptr GpuRunner::buffer_ptr(size_t i) const {
  return m_separate_mode && i < m_separate.size() ? m_separate[i] : m_arena + m_buffers[i].offset;
}

std::string GpuRunner::allocate_separate() {
  for (CUdeviceptr p : m_separate)
    if (p) m_cu.cuMemFree(p);
  m_separate.assign(m_buffers.size(), 0);
  for (size_t i = 0; i < m_buffers.size(); ++i)
    if (auto s = check(m_cu.cuMemAlloc(&m_separate[i], m_buffers[i].bytes ? m_buffers[i].bytes : 1),
                       "allocating tensor " + std::to_string(i) + " on its own");
        !s.empty())
      return s;
  return {};
}

std::string GpuRunner::upload_arena() {
  if (!m_separate_mode) return check(m_cu.cuMemcpyHtoD(m_arena, m_host, m_mapped), "copying the arena to the device");
  for (size_t i = 0; i < m_buffers.size() && i < m_separate.size(); ++i)
    if (auto s = check(m_cu.cuMemcpyHtoD(m_separate[i], m_host + m_buffers[i].offset, m_buffers[i].bytes),
                       "copying tensor " + std::to_string(i) + " to the device");
        !s.empty())
      return s;
  return {};
}

std::string GpuRunner::download_arena() {
  if (!m_separate_mode) return check(m_cu.cuMemcpyDtoH(m_host, m_arena, m_mapped), "copying the arena back");
  for (size_t i = 0; i < m_buffers.size() && i < m_separate.size(); ++i)
    if (auto s = check(m_cu.cuMemcpyDtoH(m_host + m_buffers[i].offset, m_separate[i], m_buffers[i].bytes),
                       "copying tensor " + std::to_string(i) + " back");
        !s.empty())
      return s;
  return {};
}

}  // namespace kwb::gpu
