#pragma once
// The devices table: one calibration per device identity.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/database.hpp"

namespace kwb::store {

struct DeviceRecord {
  std::string id;
  std::string kind;  // "cpu" | "cuda"
  std::string name;
  double copy_bytes_per_s = 0;
  std::optional<double> flops_per_s;
  nlohmann::json details = nlohmann::json::object();
  std::string calibrated_at;
};

class DeviceRepository {
 public:
  explicit DeviceRepository(Database& db) : m_db(db) {}
  util::Result<std::optional<DeviceRecord>> find(const std::string& id);
  util::Result<void> put(const DeviceRecord& rec);  // insert or replace
  util::Result<std::vector<DeviceRecord>> all();

 private:
  Database& m_db;
};

}  // namespace kwb::store
