#include "eval/cpu_device.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <vector>

#include "store/device_repository.hpp"

namespace kwb::eval {

namespace {

size_t parse_cache_size(std::string s) {
  size_t mult = 1;
  if (!s.empty() && (s.back() == 'K' || s.back() == 'M')) {
    mult = s.back() == 'K' ? 1024 : 1024 * 1024;
    s.pop_back();
  }
  try {
    return size_t(std::stoull(s)) * mult;
  } catch (...) {
    return 0;
  }
}

}  // namespace

CpuDevice detect_cpu() {
  CpuDevice d;
  std::string model = "unknown CPU";
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);) {
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  d.id = "cpu:" + model + ":" + std::to_string(cpus);
  d.name = model + " (" + std::to_string(cpus) + " logical CPUs)";
  size_t best = 0;
  for (int i = 0; i < 8; ++i) {
    std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/size");
    std::string s;
    if (f >> s) best = std::max(best, parse_cache_size(s));
  }
  if (best) d.llc_bytes = best;
  return d;
}

namespace {

// Anonymous memory faulted in by the kernel in one go (MAP_POPULATE): on the 2-core virtual
// machines a page fault costs ~50 us, and touching 256 MiB page by page took 2.7-4.7 s against
// about half that populated (docs/architecture.md "Calibration"). Ordinary 4 KiB pages, as a
// candidate's buffers have.
class PopulatedBuffer {
 public:
  explicit PopulatedBuffer(size_t bytes) : m_bytes(bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p != MAP_FAILED) m_data = static_cast<char*>(p);
    else m_fallback.resize(bytes), m_data = m_fallback.data();  // faulted in as it is written
  }
  ~PopulatedBuffer() {
    if (m_fallback.empty()) ::munmap(m_data, m_bytes);
  }
  PopulatedBuffer(const PopulatedBuffer&) = delete;
  PopulatedBuffer& operator=(const PopulatedBuffer&) = delete;
  char* data() const { return m_data; }

 private:
  size_t m_bytes;
  char* m_data = nullptr;
  std::vector<char> m_fallback;
};

}  // namespace

double measure_copy_bandwidth(size_t llc_bytes) {
  const size_t bytes = std::max<size_t>(llc_bytes * 8, 256u << 20);
  PopulatedBuffer src_buffer(bytes), dst_buffer(bytes);
  char *src = src_buffer.data(), *dst = dst_buffer.data();
  std::memset(src, 1, bytes);
  std::memset(dst, 0, bytes);
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    std::memcpy(dst, src, bytes);
    auto t1 = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(t1 - t0).count();
    if (s > 0) best = std::max(best, 2.0 * double(bytes) / s);
    src[size_t(rep)] = dst[bytes - 1 - size_t(rep)];  // keep the copies observable
  }
  return best;
}

util::Result<CpuDevice> cpu_device(store::Database& db, const CalibrationCache& cache, bool force) {
  CpuDevice d = detect_cpu();
  store::DeviceRepository repo(db);
  if (!force) {
    auto found = repo.find(d.id);
    if (!found) return std::unexpected(found.error());
    if (*found) {
      d.copy_bytes_per_s = (*found)->copy_bytes_per_s;
      d.calibration_source = "workspace";
      return d;
    }
    auto machine = cache.find(d.id);
    if (!machine) d.cache_problem = machine.error().what();
    else if (*machine && (*machine)->kind == "cpu") {
      store::DeviceRecord rec = **machine;
      rec.details["from_calibration_cache"] = cache.file().string();
      if (!rec.calibrated_at.empty()) rec.details["cache_calibrated_at"] = rec.calibrated_at;
      if (auto r = repo.put(rec); !r) return std::unexpected(r.error());
      d.copy_bytes_per_s = rec.copy_bytes_per_s;
      d.calibration_source = "machine";
      return d;
    }
  }
  d.copy_bytes_per_s = measure_copy_bandwidth(d.llc_bytes);
  d.calibrated_now = true;
  d.calibration_source = "measured";
  store::DeviceRecord rec;
  rec.id = d.id;
  rec.kind = "cpu";
  rec.name = d.name;
  rec.copy_bytes_per_s = d.copy_bytes_per_s;
  rec.details = {{"method", "memcpy, one thread, best of 5, bytes read + written"},
                 {"buffer_bytes", std::max<size_t>(d.llc_bytes * 8, 256u << 20)},
                 {"llc_bytes", d.llc_bytes}};
  if (auto r = repo.put(rec); !r) return std::unexpected(r.error());
  if (auto stored = repo.find(d.id); stored && *stored) rec.calibrated_at = (*stored)->calibrated_at;
  if (auto r = cache.put(rec); !r) d.cache_problem = r.error().what();
  return d;
}

}  // namespace kwb::eval
