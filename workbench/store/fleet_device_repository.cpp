#include "store/fleet_device_repository.hpp"

#include "store/statement.hpp"

namespace kwb::store {

util::Result<void> FleetDeviceRepository::put(const FleetDevice& d) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(),
               "INSERT OR REPLACE INTO fleet_devices (device_class, device_id, partition, node, kind, name, "
               "copy_bytes_per_s, flops_per_s, details, calibrated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  if (!st.ok()) return m_db.failure(st);
  st.bind(1, d.device_class).bind(2, d.device.id).bind(3, d.partition).bind(4, d.node).bind(5, d.device.kind);
  st.bind(6, d.device.name).bind(7, d.device.copy_bytes_per_s).bind(8, d.device.flops_per_s);
  st.bind(9, d.device.details.dump()).bind(10, d.device.calibrated_at);
  if (st.step() != SQLITE_DONE) return m_db.failure(st);
  m_db.note_write_ok();
  return {};
}

util::Result<std::vector<FleetDevice>> FleetDeviceRepository::all() {
  auto reader = m_db.reader();
  Statement st(reader.handle(),
               "SELECT device_class, device_id, partition, node, kind, name, copy_bytes_per_s, flops_per_s, details, "
               "calibrated_at, reported_at FROM fleet_devices ORDER BY device_class, device_id");
  if (!st.ok()) return m_db.failure(st);
  std::vector<FleetDevice> out;
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) {
    FleetDevice d;
    d.device_class = st.text(0);
    d.device.id = st.text(1);
    d.partition = st.text(2);
    d.node = st.text(3);
    d.device.kind = st.text(4);
    d.device.name = st.text(5);
    d.device.copy_bytes_per_s = st.real(6);
    if (!st.is_null(7)) d.device.flops_per_s = st.real(7);
    d.device.details = nlohmann::json::parse(st.text(8), nullptr, false);
    if (d.device.details.is_discarded()) d.device.details = nlohmann::json::object();
    d.device.calibrated_at = st.text(9);
    d.reported_at = st.text(10);
    out.push_back(std::move(d));
  }
  if (rc != SQLITE_DONE) return m_db.failure(st);
  return out;
}

}  // namespace kwb::store
