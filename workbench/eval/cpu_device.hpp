#pragma once
// The CPU as a device: identity, last-level cache size and a calibrated copy bandwidth,
// measured once per device and stored in the workspace database (devices table).
#include <cstdint>
#include <string>

#include "store/database.hpp"
#include "util/error.hpp"

namespace kwb::eval {

struct CpuDevice {
  std::string id;    // "cpu:<model>:<logical cpus>"
  std::string name;  // "AMD EPYC (2 logical CPUs)"
  size_t llc_bytes = 32u << 20;
  double copy_bytes_per_s = 0;  // bytes read + written per second, one thread
  bool calibrated_now = false;
};

// Reads /proc/cpuinfo and sysfs.
CpuDevice detect_cpu();
// One-thread memcpy bandwidth over buffers far larger than the LLC (best of several runs).
double measure_copy_bandwidth(size_t llc_bytes);
// Detects the CPU and loads its calibration, measuring and storing it when missing (or `force`).
util::Result<CpuDevice> cpu_device(store::Database& db, bool force = false);

}  // namespace kwb::eval
