#include "store/tuning_repository.hpp"

#include <nlohmann/json.hpp>

#include "store/statement.hpp"

namespace kwb::store {

namespace {

constexpr const char* k_select =
    "SELECT op, variant, backend, workload, params, source_sha256, config, device, toolchain, workbench, median_ns, "
    "stderr_pct, samples, candidate, stale, measured_at, spec_version FROM tuning_records";

std::map<std::string, int64_t> int_map(const std::string& text) {
  std::map<std::string, int64_t> out;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_object())
    for (const auto& [k, v] : j.items())
      if (v.is_number_integer()) out[k] = v.get<int64_t>();
  return out;
}

TuningRecord read_row(const Statement& st) {
  TuningRecord r;
  r.op = st.text(0);
  r.variant = st.text(1);
  r.backend = st.text(2);
  r.workload = st.text(3);
  r.params = int_map(st.text(4));
  r.source_sha256 = st.text(5);
  r.config = int_map(st.text(6));
  r.identity = {st.text(7), st.text(8), st.text(9), int(st.integer(16))};
  r.median_ns = st.real(10);
  r.stderr_pct = st.real(11);
  r.samples = st.integer(12);
  r.candidate = st.text(13);
  r.stale = st.integer(14) != 0;
  r.measured_at = st.text(15);
  return r;
}

}  // namespace

util::Result<void> TuningRepository::put(const std::vector<TuningRecord>& records) {
  auto guard = m_db.lock();
  if (auto r = m_db.exec("BEGIN IMMEDIATE;"); !r) return r;
  auto rollback = [&](util::Error e) {
    m_db.rollback();
    return std::unexpected(std::move(e));
  };
  for (const auto& rec : records) {
    Statement st(m_db.handle(),
                 "INSERT OR REPLACE INTO tuning_records (op, variant, backend, workload, params, source_sha256, config, "
                 "device, toolchain, workbench, median_ns, stderr_pct, samples, candidate, stale, spec_version) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, 0, ?15)");
    if (!st.ok()) return rollback(m_db.failure(st, "tuning_records").error());
    st.bind(1, rec.op).bind(2, rec.variant).bind(3, rec.backend).bind(4, rec.workload);
    st.bind(5, nlohmann::json(rec.params).dump()).bind(6, rec.source_sha256).bind(7, nlohmann::json(rec.config).dump());
    st.bind(8, rec.identity.device).bind(9, rec.identity.toolchain).bind(10, rec.identity.workbench);
    st.bind(11, rec.median_ns).bind(12, rec.stderr_pct).bind(13, rec.samples).bind(14, rec.candidate);
    st.bind(15, int64_t(rec.identity.spec_version));
    if (st.step() != SQLITE_DONE) return rollback(m_db.failure(st, "tuning_records " + rec.op + "/" + rec.workload).error());
    Statement stale(m_db.handle(),
                    "UPDATE tuning_records SET stale = 1 WHERE op = ?1 AND variant = ?2 AND backend = ?3 AND "
                    "workload = ?4 AND source_sha256 = ?5 AND NOT (device = ?6 AND toolchain = ?7 AND workbench = ?8 AND "
                    "spec_version = ?9)");
    stale.bind(1, rec.op).bind(2, rec.variant).bind(3, rec.backend).bind(4, rec.workload).bind(5, rec.source_sha256);
    stale.bind(6, rec.identity.device).bind(7, rec.identity.toolchain).bind(8, rec.identity.workbench);
    stale.bind(9, int64_t(rec.identity.spec_version));
    if (stale.step() != SQLITE_DONE) return rollback(m_db.failure(stale, "tuning_records").error());
  }
  if (auto r = m_db.exec("COMMIT;"); !r) return rollback(r.error());
  m_db.note_write_ok();
  return {};
}

util::Result<std::vector<TuningRecord>> TuningRepository::find(const TuningQuery& q) {
  auto reader = m_db.reader();
  Statement st(reader.handle(), std::string(k_select) +
                                  " WHERE (?1 = '' OR op = ?1) AND (?2 = '' OR variant = ?2) AND (?3 = '' OR backend = ?3)"
                                  " AND (?4 = '' OR source_sha256 = ?4) AND (?5 = 1 OR stale = 0)"
                                  " ORDER BY op, variant, backend, source_sha256, workload, measured_at");
  if (!st.ok()) return m_db.failure(st);
  st.bind(1, q.op).bind(2, q.variant).bind(3, q.backend).bind(4, q.source_sha256).bind(5, q.include_stale ? 1 : 0);
  std::vector<TuningRecord> out;
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) out.push_back(read_row(st));
  if (rc != SQLITE_DONE) return m_db.failure(st);
  return out;
}

util::Result<std::map<std::string, TuningRecord>> TuningRepository::current(const std::string& op,
                                                                           const std::string& variant,
                                                                           const std::string& backend,
                                                                           const std::string& source_sha256,
                                                                           const TuningIdentity& identity) {
  auto all = find({op, variant, backend, source_sha256, false});
  if (!all) return std::unexpected(all.error());
  std::map<std::string, TuningRecord> out;
  for (auto& r : *all)
    if (r.identity == identity) out[r.workload] = std::move(r);
  return out;
}

util::Result<int> TuningRepository::mark_stale_except(const std::string& op, const std::string& variant,
                                                      const std::string& backend, const std::string& source_sha256,
                                                      const TuningIdentity& identity) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(),
               "UPDATE tuning_records SET stale = 1 WHERE op = ?1 AND variant = ?2 AND backend = ?3 AND "
               "source_sha256 = ?4 AND stale = 0 AND NOT (device = ?5 AND toolchain = ?6 AND workbench = ?7 AND "
               "spec_version = ?8)");
  if (!st.ok()) return m_db.failure(st);
  st.bind(1, op).bind(2, variant).bind(3, backend).bind(4, source_sha256);
  st.bind(5, identity.device).bind(6, identity.toolchain).bind(7, identity.workbench);
  st.bind(8, int64_t(identity.spec_version));
  if (st.step() != SQLITE_DONE) return m_db.failure(st);
  return st.changes();
}

}  // namespace kwb::store
