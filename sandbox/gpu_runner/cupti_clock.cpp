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

struct Span {
  std::string name;
  uint64_t start = 0, end = 0;
};

// CUPTI calls these from its own threads or from cuptiActivityFlushAll's caller.
std::mutex g_mutex;
std::vector<Span> g_spans;
decltype(&::cuptiActivityGetNextRecord) g_next = nullptr;
decltype(&::cuptiGetTimestamp) g_timestamp = nullptr;

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

bool CuptiClock::load(std::string& error) {
  if (m_loaded || !m_load_error.empty()) {
    error = m_load_error;
    return m_loaded;
  }
  for (const char* path : {"libcupti.so.13", "/usr/local/cuda/lib64/libcupti.so.13",
                           "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13", "libcupti.so"})
    if ((m_lib = ::dlopen(path, RTLD_NOW | RTLD_LOCAL))) break;
  if (!m_lib) {
    error = m_load_error = "libcupti not found";
    return false;
  }
  g_next = symbol<decltype(&::cuptiActivityGetNextRecord)>(m_lib, "cuptiActivityGetNextRecord");
  g_timestamp = symbol<decltype(&::cuptiGetTimestamp)>(m_lib, "cuptiGetTimestamp");
  if (!symbol<void*>(m_lib, "cuptiActivityRegisterCallbacks") || !symbol<void*>(m_lib, "cuptiActivityEnable") ||
      !g_next || !g_timestamp || !symbol<void*>(m_lib, "cuptiActivityFlushAll")) {
    error = m_load_error = "libcupti lacks the activity API";
    g_next = nullptr;
    g_timestamp = nullptr;
    ::dlclose(m_lib);
    m_lib = nullptr;
    return false;
  }
  m_loaded = true;
  return true;
}

bool CuptiClock::open(std::string& error) {
  if (m_ready) return true;
  if (!load(error)) return false;
  auto reg = symbol<decltype(&::cuptiActivityRegisterCallbacks)>(m_lib, "cuptiActivityRegisterCallbacks");
  auto enable = symbol<decltype(&::cuptiActivityEnable)>(m_lib, "cuptiActivityEnable");
  if (reg(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
      enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
    error = "CUPTI refused kernel activity records";
    return false;
  }
  m_ready = true;
  return true;
}

namespace {

// Flushes CUPTI's buffers and hands over the records collected since the last drain.
std::vector<Span> drain(void* lib) {
  auto flush = symbol<decltype(&::cuptiActivityFlushAll)>(lib, "cuptiActivityFlushAll");
  flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::vector<Span> spans;
  std::lock_guard lock(g_mutex);
  spans.swap(g_spans);
  return spans;
}

// last end - first start over the spans `keep` accepts; `count` of them.
template <class Keep>
int64_t span_of(const std::vector<Span>& spans, Keep keep, int& count) {
  uint64_t first = 0, last = 0;
  for (const auto& s : spans) {
    if (!keep(s)) continue;
    first = count ? std::min(first, s.start) : s.start;
    last = count ? std::max(last, s.end) : s.end;
    ++count;
  }
  return count ? int64_t(last - first) : 0;
}

}  // namespace

int64_t CuptiClock::take(const std::vector<std::string>& names, int& count) {
  count = 0;
  if (!m_ready) return 0;
  return span_of(
      drain(m_lib), [&](const Span& s) { return std::find(names.begin(), names.end(), s.name) != names.end(); }, count);
}

std::vector<int64_t> CuptiClock::take_each(const std::vector<std::string>& names, uint64_t since, size_t per_sample,
                                           size_t expected, size_t& recorded) {
  recorded = 0;
  if (!m_ready || per_sample == 0) return {};
  std::vector<Span> mine;
  for (int attempt = 0; attempt < 2 && mine.size() < expected; ++attempt)
    for (auto& s : drain(m_lib))
      if (s.start >= since && std::find(names.begin(), names.end(), s.name) != names.end()) mine.push_back(std::move(s));
  recorded = mine.size();
  if (mine.size() != expected || expected % per_sample != 0) return {};
  std::sort(mine.begin(), mine.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  std::vector<int64_t> spans;
  for (size_t g = 0; g < mine.size(); g += per_sample) {
    int count = 0;
    std::vector<Span> group(mine.begin() + long(g), mine.begin() + long(g + per_sample));
    spans.push_back(span_of(group, [](const Span&) { return true; }, count));
  }
  return spans;
}

uint64_t CuptiClock::now() const {
  uint64_t t = 0;
  if (m_ready && g_timestamp) g_timestamp(&t);
  return t;
}
#else
bool CuptiClock::load(std::string& error) {
  error = "built without cupti.h";
  return false;
}
bool CuptiClock::open(std::string& error) {
  error = "built without cupti.h";
  return false;
}
int64_t CuptiClock::take(const std::vector<std::string>&, int& count) {
  count = 0;
  return 0;
}
std::vector<int64_t> CuptiClock::take_each(const std::vector<std::string>&, uint64_t, size_t, size_t, size_t& recorded) {
  recorded = 0;
  return {};
}
uint64_t CuptiClock::now() const { return 0; }
#endif

}  // namespace kwb::gpu
