#include "eval/calibration_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "util/fs.hpp"

namespace kwb::eval {

namespace {

constexpr const char* k_calibrations_schema = "kwb.calibrations.v1";
constexpr size_t k_calibrations_max_bytes = 4u << 20;

// An exclusive flock on "<file>.lock" for the life of the object (no lock where it cannot be
// made: then concurrent writers may drop each other's entries, never corrupt the file).
class CalibrationFileLock {
 public:
  explicit CalibrationFileLock(const std::filesystem::path& file) {
    m_fd = ::open((file.string() + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd >= 0) ::flock(m_fd, LOCK_EX);
  }
  ~CalibrationFileLock() {
    if (m_fd >= 0) ::close(m_fd);
  }
  CalibrationFileLock(const CalibrationFileLock&) = delete;
  CalibrationFileLock& operator=(const CalibrationFileLock&) = delete;

 private:
  int m_fd = -1;
};

// The file's devices object; an empty one when the file does not exist.
util::Result<nlohmann::json> read_calibrated_devices(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return nlohmann::json::object();
  auto text = util::read_file_nofollow(file, k_calibrations_max_bytes);
  if (!text) return util::fail("calibration cache", file.string() + ": " + text.error().what());
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("schema", "") != k_calibrations_schema || !j.contains("devices") ||
      !j["devices"].is_object())
    return util::fail("calibration cache", file.string() + " is not a calibration cache (schema " + k_calibrations_schema +
                                               "); remove it or set calibration-cache to another file");
  return j["devices"];
}

}  // namespace

CalibrationCache CalibrationCache::from_setting(const std::string& value) {
  if (value == "off" || value.empty()) return {};
  return CalibrationCache(value);
}

util::Result<std::optional<store::DeviceRecord>> CalibrationCache::find(const std::string& id) const {
  if (!enabled()) return std::optional<store::DeviceRecord>{};
  auto devices = read_calibrated_devices(m_file);
  if (!devices) return std::unexpected(devices.error());
  if (!devices->contains(id)) return std::optional<store::DeviceRecord>{};
  const auto& d = (*devices)[id];
  store::DeviceRecord r;
  r.id = id;
  try {
    r.kind = d.at("kind").get<std::string>();
    r.name = d.value("name", "");
    r.copy_bytes_per_s = d.at("copy_bytes_per_s").get<double>();
    if (d.contains("flops_per_s") && d["flops_per_s"].is_number()) r.flops_per_s = d["flops_per_s"].get<double>();
    r.details = d.value("details", nlohmann::json::object());
    r.calibrated_at = d.value("calibrated_at", "");
  } catch (const std::exception& e) {
    return util::fail("calibration cache", m_file.string() + ": the entry of " + id + " is malformed: " + e.what());
  }
  if (!(r.copy_bytes_per_s > 0) || !r.details.is_object())
    return util::fail("calibration cache", m_file.string() + ": the entry of " + id + " has no copy bandwidth");
  return r;
}

util::Result<void> CalibrationCache::put(const store::DeviceRecord& rec) const {
  if (!enabled()) return {};
  std::error_code ec;
  std::filesystem::create_directories(m_file.parent_path(), ec);
  if (ec) return util::fail("calibration cache", "cannot create " + m_file.parent_path().string() + ": " + ec.message());
  CalibrationFileLock lock(m_file);
  auto devices = read_calibrated_devices(m_file);
  if (!devices) return std::unexpected(devices.error());  // not ours to overwrite
  nlohmann::json all = *devices;
  nlohmann::json entry = {{"kind", rec.kind},
                          {"name", rec.name},
                          {"copy_bytes_per_s", rec.copy_bytes_per_s},
                          {"details", rec.details},
                          {"calibrated_at", rec.calibrated_at}};
  if (rec.flops_per_s) entry["flops_per_s"] = *rec.flops_per_s;
  all[rec.id] = entry;
  return util::write_file_atomic(m_file, nlohmann::json{{"schema", k_calibrations_schema}, {"devices", all}}.dump(2) + "\n");
}

}  // namespace kwb::eval
