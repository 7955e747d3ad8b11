#pragma once
// The few NVML calls the GPU runner needs (SM clock, its maximum, throttle reasons), loaded with
// dlopen from libnvidia-ml.so.1. The toolkit ships no nvml.h here, so the types are declared
// below as NVML defines them (stable C ABI). Without NVML, clocks are simply not reported.
#include <cstdint>
#include <string>

namespace kwb::gpu {

class Nvml {
 public:
  // Loads NVML and opens the device with this PCI bus id ("0000:19:00.0"); false with `error`.
  bool open(const std::string& pci_bus_id, std::string& error);
  bool ready() const { return m_device != nullptr; }
  unsigned sm_clock_mhz() const;      // 0 when unknown
  unsigned max_sm_clock_mhz() const;  // 0 when unknown
  // Throttle reasons that slow the SM clock for reasons other than a light load
  // (thermal, hardware slowdown, power brake; the software power cap counts too).
  uint64_t throttle_reasons() const;

  // Bits of nvmlClocksThrottleReasons (nvml.h).
  static constexpr uint64_t k_sw_power_cap = 0x4, k_hw_slowdown = 0x8, k_sw_thermal = 0x20, k_hw_thermal = 0x40,
                            k_hw_power_brake = 0x80;

 private:
  using Device = void*;
  using InitFn = int (*)();
  using ByPciFn = int (*)(const char*, Device*);
  using ClockFn = int (*)(Device, int, unsigned*);
  using ReasonsFn = int (*)(Device, unsigned long long*);
  Device m_device = nullptr;
  ClockFn m_clock = nullptr, m_max_clock = nullptr;
  ReasonsFn m_reasons = nullptr;
};

}  // namespace kwb::gpu
