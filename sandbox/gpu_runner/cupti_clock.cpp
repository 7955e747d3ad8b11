#include "gpu_runner/cupti_clock.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

#if __has_include(<cupti.h>)
#include <cupti.h>
#define KWB_HAVE_CUPTI 1
#endif

namespace kwb::gpu {

#ifdef KWB_HAVE_CUPTI
namespace {

struct KernelSpan {
  std::string name;
  uint64_t start = 0, end = 0;
};

// CUPTI calls these from its own threads or from cuptiActivityFlushAll's caller.
std::mutex g_mutex;
std::vector<KernelSpan> g_spans;
decltype(&::cuptiActivityGetNextRecord) g_next = nullptr;

constexpr size_t k_buffer_bytes = 1 << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, k_buffer_bytes));
  *size = *buffer ? k_buffer_bytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  {
    std::lock_guard lock(g_mutex);
    while (g_next && g_next(buffer, valid, &record) == CUPTI_SUCCESS)
      if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(record);
        g_spans.push_back({k->name ? k->name : "", k->start, k->end});
      }
  }
  std::free(buffer);
}

template <class F>
F symbol(void* lib, const char* name) {
  return reinterpret_cast<F>(::dlsym(lib, name));
}

}  // namespace

bool CuptiClock::open(std::string& error) {
  if (m_ready) return true;
  for (const char* path : {"libcupti.so.13", "/usr/local/cuda/lib64/libcupti.so.13",
                           "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13", "libcupti.so"})
    if ((m_lib = ::dlopen(path, RTLD_NOW | RTLD_LOCAL))) break;
  if (!m_lib) {
    error = "libcupti not found";
    return false;
  }
  auto reg = symbol<decltype(&::cuptiActivityRegisterCallbacks)>(m_lib, "cuptiActivityRegisterCallbacks");
  auto enable = symbol<decltype(&::cuptiActivityEnable)>(m_lib, "cuptiActivityEnable");
  g_next = symbol<decltype(&::cuptiActivityGetNextRecord)>(m_lib, "cuptiActivityGetNextRecord");
  if (!reg || !enable || !g_next || !symbol<void*>(m_lib, "cuptiActivityFlushAll")) {
    error = "libcupti lacks the activity API";
    return false;
  }
  if (reg(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
      enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
    error = "CUPTI refused kernel activity records";
    return false;
  }
  m_ready = true;
  return true;
}

int64_t CuptiClock::take(const std::vector<std::string>& names, int& count) {
  count = 0;
  if (!m_ready) return 0;
  auto flush = symbol<decltype(&::cuptiActivityFlushAll)>(m_lib, "cuptiActivityFlushAll");
  flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::vector<KernelSpan> spans;
  {
    std::lock_guard lock(g_mutex);
    spans.swap(g_spans);
  }
  uint64_t first = 0, last = 0;
  for (const auto& s : spans) {
    if (std::find(names.begin(), names.end(), s.name) == names.end()) continue;
    first = count ? std::min(first, s.start) : s.start;
    last = count ? std::max(last, s.end) : s.end;
    ++count;
  }
  return count ? int64_t(last - first) : 0;
}
#else
bool CuptiClock::open(std::string& error) {
  error = "built without cupti.h";
  return false;
}
int64_t CuptiClock::take(const std::vector<std::string>&, int& count) {
  count = 0;
  return 0;
}
#endif

}  // namespace kwb::gpu
