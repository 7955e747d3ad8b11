#pragma once
// CPU calibrations shared by every workspace of one machine (docs/architecture.md "Calibration").
// A workspace measures its CPU's copy bandwidth once and keeps it in kwb.db; without one it takes
// this machine's from the cache instead of measuring again (the measurement faults in 512 MiB of
// buffers: seconds on a busy or virtualised machine). `kwb calibrate` measures again and replaces
// both. The file: {"schema": "kwb.calibrations.v1", "devices": {"<device id>": {kind, name,
// copy_bytes_per_s, flops_per_s?, details, calibrated_at}}}, replaced atomically under a lock.
#include <filesystem>
#include <optional>
#include <string>

#include "store/device_repository.hpp"
#include "util/error.hpp"

namespace kwb::eval {

class CalibrationCache {
 public:
  CalibrationCache() = default;  // none: every workspace measures its own
  explicit CalibrationCache(std::filesystem::path file) : m_file(std::move(file)) {}
  // The `calibration-cache` setting: a path, or "off" (none). util::Settings fills its default:
  // $XDG_CACHE_HOME/kwb/calibrations.json, else $HOME/.cache/kwb/calibrations.json, else off.
  static CalibrationCache from_setting(const std::string& value);

  bool enabled() const { return !m_file.empty(); }
  const std::filesystem::path& file() const { return m_file; }
  // The machine's calibration of device `id`; nullopt when there is none or the cache is off; an
  // error naming the file when it cannot be read or is not a calibration cache.
  util::Result<std::optional<store::DeviceRecord>> find(const std::string& id) const;
  // Adds or replaces `rec` (other devices' entries are kept).
  util::Result<void> put(const store::DeviceRecord& rec) const;

 private:
  std::filesystem::path m_file;
};

}  // namespace kwb::eval
