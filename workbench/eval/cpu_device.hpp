#pragma once
// The CPU as a device: identity, last-level cache size and a calibrated copy bandwidth,
// measured once per device and stored in the workspace database (devices table) and in the
// machine's calibration cache, which later workspaces take it from (calibration_cache.hpp).
#include <cstdint>
#include <string>

#include "eval/calibration_cache.hpp"
#include "store/database.hpp"
#include "util/error.hpp"

namespace kwb::eval {

struct CpuDevice {
  std::string id;    // "cpu:<model>:<logical cpus>"
  std::string name;  // "AMD EPYC (2 logical CPUs)"
  size_t llc_bytes = 32u << 20;
  double copy_bytes_per_s = 0;  // bytes read + written per second, one thread
  bool calibrated_now = false;
  // Where the calibration came from: "workspace" (kwb.db), "machine" (the calibration cache,
  // now also in kwb.db) or "measured" (now, stored in both).
  std::string calibration_source;
  // A calibration cache that could not be read or written (the calibration is still good): why.
  std::string cache_problem;
};

// Reads /proc/cpuinfo and sysfs.
CpuDevice detect_cpu();
// One-thread memcpy bandwidth over buffers far larger than the LLC (best of several runs).
double measure_copy_bandwidth(size_t llc_bytes);
// Detects the CPU and loads its calibration: the workspace's, else the machine's (`cache`), else
// measured and stored in both. `force` measures again whatever is stored.
util::Result<CpuDevice> cpu_device(store::Database& db, const CalibrationCache& cache, bool force = false);

}  // namespace kwb::eval
