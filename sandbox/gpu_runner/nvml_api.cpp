#include "gpu_runner/nvml_api.hpp"

#include <dlfcn.h>

namespace kwb::gpu {

namespace {
constexpr int k_success = 0;
constexpr int k_clock_sm = 1;  // NVML_CLOCK_SM
constexpr const char* k_libnvml[] = {
    "libnvidia-ml.so.1",
    "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
    "/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1",
    "/usr/lib64/libnvidia-ml.so.1",
    "/usr/local/nvidia/lib64/libnvidia-ml.so.1",
    "/usr/lib/wsl/lib/libnvidia-ml.so.1",
};
}  // namespace

bool Nvml::open(const std::string& pci_bus_id, std::string& error) {
  void* lib = nullptr;
  for (const char* path : k_libnvml)
    if ((lib = ::dlopen(path, RTLD_NOW | RTLD_LOCAL))) break;
  if (!lib) {
    error = "libnvidia-ml.so.1 not found";
    return false;
  }
  auto init = reinterpret_cast<InitFn>(::dlsym(lib, "nvmlInit_v2"));
  auto by_pci = reinterpret_cast<ByPciFn>(::dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
  m_clock = reinterpret_cast<ClockFn>(::dlsym(lib, "nvmlDeviceGetClockInfo"));
  m_max_clock = reinterpret_cast<ClockFn>(::dlsym(lib, "nvmlDeviceGetMaxClockInfo"));
  m_reasons = reinterpret_cast<ReasonsFn>(::dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons"));
  if (!m_reasons) m_reasons = reinterpret_cast<ReasonsFn>(::dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons"));
  if (!init || !by_pci || !m_clock || !m_max_clock) {
    error = "NVML lacks nvmlInit_v2 / nvmlDeviceGetHandleByPciBusId_v2 / nvmlDeviceGetClockInfo";
    return false;
  }
  if (int rc = init(); rc != k_success) {
    error = "nvmlInit_v2 failed with NVML error " + std::to_string(rc);
    return false;
  }
  Device d = nullptr;
  if (int rc = by_pci(pci_bus_id.c_str(), &d); rc != k_success || !d) {
    error = "NVML cannot open the device at " + pci_bus_id + " (NVML error " + std::to_string(rc) + ")";
    return false;
  }
  m_device = d;
  return true;
}

unsigned Nvml::sm_clock_mhz() const {
  unsigned v = 0;
  if (m_device && m_clock(m_device, k_clock_sm, &v) != k_success) v = 0;
  return v;
}

unsigned Nvml::max_sm_clock_mhz() const {
  unsigned v = 0;
  if (m_device && m_max_clock(m_device, k_clock_sm, &v) != k_success) v = 0;
  return v;
}

uint64_t Nvml::throttle_reasons() const {
  unsigned long long v = 0;
  if (!m_device || !m_reasons || m_reasons(m_device, &v) != k_success) return 0;
  return v;
}

}  // namespace kwb::gpu
