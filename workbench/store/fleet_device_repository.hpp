#pragma once
// The fleet_devices table: the calibration of each device the fleet's workers evaluated on, by
// device class (docs/fleet.md "Device classes"). A `kwb worker` calibrates its node's devices in
// its node-local worker.db and puts the records in its result.json; the daemon keeps the latest
// of each here when it stores the verdict. GET /v1/devices lists them under their class.
#include <string>
#include <vector>

#include "store/database.hpp"
#include "store/device_repository.hpp"

namespace kwb::store {

struct FleetDevice {
  std::string device_class;  // "cpu-x86_64-v3", "cuda-sm_90"
  std::string partition;     // the Slurm partition its job ran in ("" = the cluster's default)
  std::string node;          // the node that reported it last
  DeviceRecord device;       // the calibration, as the node stored it
  std::string reported_at;
};

class FleetDeviceRepository {
 public:
  explicit FleetDeviceRepository(Database& db) : m_db(db) {}
  util::Result<void> put(const FleetDevice& d);  // insert or replace (class, device id)
  util::Result<std::vector<FleetDevice>> all();  // by class, then device id

 private:
  Database& m_db;
};

}  // namespace kwb::store
