#include "store/candidate_repository.hpp"

#include <mutex>

#include "store/candidate_rows.hpp"
#include "store/statement.hpp"
#include "util/random.hpp"

namespace kwb::store {

namespace {

util::Unexpected err(const Database& db, const Statement& st) { return db.failure(st); }

}  // namespace

util::Result<std::optional<CandidateRecord>> CandidateRepository::find_by_idempotency_key(
    std::optional<int64_t> token_id, const std::string& key) {
  auto reader = m_db.reader();
  Statement q(reader.handle(), std::string("SELECT ") + k_candidate_columns +
                                 " FROM candidates WHERE coalesce(token_id, 0) = ?1 AND idempotency_key = ?2");
  q.bind(1, token_id.value_or(0)).bind(2, key);
  int rc = q.step();
  if (rc == SQLITE_ROW) return std::optional<CandidateRecord>(read_candidate_row(q));
  if (rc == SQLITE_DONE) return std::optional<CandidateRecord>();
  return err(m_db, q);
}

util::Result<CandidateRecord> CandidateRepository::insert(CandidateRecord rec, bool* existing) {
  auto r = insert_once(rec, existing);
  // A full disk: the daemon evicts its caches, then the insert is tried once more.
  if (!r && r.error().kind == util::ErrorKind::storage_full && m_db.relieve_space()) r = insert_once(rec, existing);
  return r;
}

util::Result<CandidateRecord> CandidateRepository::insert_once(CandidateRecord rec, bool* existing) {
  auto guard = m_db.lock();
  Database::DurableWrite durable(m_db);  // a 202 follows: on disk first
  if (existing) *existing = false;
  if (rec.idempotency_key) {
    Statement q(m_db.handle(), std::string("SELECT ") + k_candidate_columns +
                                   " FROM candidates WHERE coalesce(token_id, 0) = ?1 AND idempotency_key = ?2");
    q.bind(1, rec.token_id.value_or(0)).bind(2, *rec.idempotency_key);
    int rc = q.step();
    if (rc == SQLITE_ROW) {
      if (existing) *existing = true;
      return read_candidate_row(q);
    }
    if (rc != SQLITE_DONE) return err(m_db, q);
  }
  rec.id = "c-" + util::random_hex(8);
  Statement st(m_db.handle(),
               "INSERT INTO candidates (id, seq, token_id, op, variant, backend, source_sha256, source_name, flags, "
               "note, parent, idempotency_key, state, bench, device_class, profile) VALUES (?1, (SELECT coalesce(max(seq), 0) + 1 "
               "FROM candidates), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 'queued', ?12, ?13, ?14) RETURNING seq, created_at, updated_at");
  if (!st.ok()) return err(m_db, st);
  st.bind(1, rec.id).bind(2, rec.token_id).bind(3, rec.op).bind(4, rec.variant).bind(5, rec.backend);
  st.bind(6, rec.source_sha256).bind(7, rec.source_name).bind(8, nlohmann::json(rec.flags).dump());
  st.bind(9, rec.note).bind(10, rec.parent).bind(11, rec.idempotency_key).bind(12, nlohmann::json(rec.bench).dump());
  st.bind(13, rec.device_class);
  st.bind(14, int64_t(rec.profile ? 1 : 0));
  int rc = st.step();
  if (rc == SQLITE_ROW) {
    rec.seq = st.integer(0);
    rec.created_at = st.text(1);
    rec.updated_at = st.text(2);
  }
  // The row is stored only once the statement completed: its commit (and a full disk's
  // SQLITE_FULL) comes after the RETURNING row.
  if (rc != SQLITE_ROW || !st.done()) {
    // A concurrent submit with the same idempotency key won the race: return its candidate.
    if ((st.rc() & 0xff) == SQLITE_CONSTRAINT && rec.idempotency_key) return insert_once(std::move(rec), existing);
    return err(m_db, st);
  }
  m_db.note_write_ok();
  rec.state = core::CandidateState::queued;
  return rec;
}

util::Result<std::optional<CandidateRecord>> CandidateRepository::find(const std::string& id) {
  auto reader = m_db.reader();
  Statement st(reader.handle(), std::string("SELECT ") + k_candidate_columns + " FROM candidates WHERE id = ?1");
  if (!st.ok()) return err(m_db, st);
  st.bind(1, id);
  int rc = st.step();
  if (rc == SQLITE_ROW) return read_candidate_row(st);
  if (rc == SQLITE_DONE) return std::optional<CandidateRecord>{};
  return err(m_db, st);
}

util::Result<std::vector<CandidateRecord>> CandidateRepository::list(const CandidateFilter& f) {
  auto reader = m_db.reader();
  std::string sql = std::string("SELECT ") + k_candidate_columns + " FROM candidates WHERE 1";
  if (f.op) sql += " AND op = ?1";
  if (f.state) sql += " AND state = ?2";
  if (f.status) sql += " AND status = ?3";
  if (f.token_id) sql += " AND coalesce(token_id, 0) = ?4";  // 0: submitted without a token (--no-auth)
  if (f.before_seq) sql += " AND seq < ?5";
  if (f.source_sha256) sql += " AND source_sha256 = ?7";
  if (f.device_class) sql += " AND device_class = ?8";
  sql += " ORDER BY seq DESC LIMIT ?6";
  Statement st(reader.handle(), sql);
  if (!st.ok()) return err(m_db, st);
  if (f.op) st.bind(1, *f.op);
  if (f.state) st.bind(2, *f.state);
  if (f.status) st.bind(3, *f.status);
  if (f.token_id) st.bind(4, *f.token_id);
  if (f.before_seq) st.bind(5, *f.before_seq);
  if (f.source_sha256) st.bind(7, *f.source_sha256);
  if (f.device_class) st.bind(8, *f.device_class);
  st.bind(6, int64_t(f.limit));
  std::vector<CandidateRecord> out;
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) out.push_back(read_candidate_row(st));
  if (rc != SQLITE_DONE) return err(m_db, st);
  return out;
}

util::Result<bool> CandidateRepository::set_state(const std::string& id, core::CandidateState from,
                                                 core::CandidateState to) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(),
               "UPDATE candidates SET state = ?3, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') "
               "WHERE id = ?1 AND state = ?2");
  st.bind(1, id).bind(2, std::string(core::state_name(from))).bind(3, std::string(core::state_name(to)));
  if (st.step() != SQLITE_DONE) return err(m_db, st);
  m_db.note_write_ok();
  return st.changes() > 0;
}

util::Result<int> CandidateRepository::begin_attempt(const std::string& id) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(),
               "UPDATE candidates SET state = 'analyzing', attempts = attempts + 1, "
               "updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') "
               "WHERE id = ?1 AND state NOT IN ('done', 'cancelled') RETURNING attempts");
  st.bind(1, id);
  int rc = st.step();
  int attempt = rc == SQLITE_ROW ? int(st.integer(0)) : 0;
  if ((rc != SQLITE_ROW && rc != SQLITE_DONE) || (rc == SQLITE_ROW && !st.done())) return err(m_db, st);
  m_db.note_write_ok();
  return attempt;
}

util::Result<core::CandidateState> CandidateRepository::cancel(const std::string& id, bool* cancelled_now,
                                                               const Events& events) {
  if (cancelled_now) *cancelled_now = false;
  {
    auto guard = m_db.lock();
    if (auto r = m_db.exec("BEGIN IMMEDIATE;"); !r) return std::unexpected(r.error());
    auto rollback = [&](util::Error e) -> util::Result<core::CandidateState> {
      m_db.rollback();
      return std::unexpected(std::move(e));
    };
    Statement q(m_db.handle(),
                "UPDATE candidates SET state = 'cancelled', cancel_requested = 1, "
                "updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') "
                "WHERE id = ?1 AND state = 'queued'");
    q.bind(1, id);
    if (q.step() != SQLITE_DONE) return rollback(err(m_db, q).error());
    const bool now = q.changes() > 0;
    if (now) {
      if (auto r = append_events(m_db, id, events); !r) return rollback(r.error());
    } else {
      Statement f(m_db.handle(),
                  "UPDATE candidates SET cancel_requested = 1 WHERE id = ?1 AND state NOT IN ('done', 'cancelled')");
      f.bind(1, id);
      if (f.step() != SQLITE_DONE) return rollback(err(m_db, f).error());
    }
    if (auto r = m_db.exec("COMMIT;"); !r) return rollback(r.error());
    m_db.note_write_ok();
    if (now) {
      if (cancelled_now) *cancelled_now = true;
      return core::CandidateState::cancelled;
    }
  }
  auto rec = find(id);
  if (!rec) return std::unexpected(rec.error());
  if (!*rec) return util::fail(util::ErrorKind::not_found, "candidate " + id, "not found");
  return (*rec)->state;
}

util::Result<bool> CandidateRepository::mark_cancelled(const std::string& id, const Events& events) {
  auto guard = m_db.lock();
  if (auto r = m_db.exec("BEGIN IMMEDIATE;"); !r) return std::unexpected(r.error());
  auto rollback = [&](util::Error e) -> util::Result<bool> {
    m_db.rollback();
    return std::unexpected(std::move(e));
  };
  Statement st(m_db.handle(),
               "UPDATE candidates SET state = 'cancelled', updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), "
               "finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1 AND state NOT IN ('done', 'cancelled')");
  st.bind(1, id);
  if (st.step() != SQLITE_DONE) return rollback(err(m_db, st).error());
  const bool now = st.changes() > 0;
  if (now)
    if (auto r = append_events(m_db, id, events); !r) return rollback(r.error());
  if (auto r = m_db.exec("COMMIT;"); !r) return rollback(r.error());
  m_db.note_write_ok();
  return now;
}

util::Result<void> CandidateRepository::record_stage(const std::string& id, int attempt, const std::string& stage,
                                                     double ms, const std::string& detail) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(),
               "INSERT OR REPLACE INTO stages (candidate_id, attempt, stage, ms, detail) VALUES (?1, ?2, ?3, ?4, ?5)");
  st.bind(1, id).bind(2, int64_t(attempt)).bind(3, stage).bind(4, ms).bind(5, detail);
  if (st.step() != SQLITE_DONE) return err(m_db, st);
  return {};
}

util::Result<std::vector<CandidateRecord>> CandidateRepository::unfinished() {
  auto reader = m_db.reader();
  Statement st(reader.handle(), std::string("SELECT ") + k_candidate_columns +
                                  " FROM candidates WHERE state NOT IN ('done', 'cancelled') ORDER BY seq");
  std::vector<CandidateRecord> out;
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) out.push_back(read_candidate_row(st));
  if (rc != SQLITE_DONE) return err(m_db, st);
  return out;
}

util::Result<int64_t> CandidateRepository::count_active(std::optional<int64_t> token_id) {
  auto reader = m_db.reader();
  Statement st(reader.handle(),
               "SELECT count(*) FROM candidates WHERE state NOT IN ('done', 'cancelled') AND coalesce(token_id, 0) = ?1");
  st.bind(1, token_id.value_or(0));
  if (st.step() != SQLITE_ROW) return err(m_db, st);
  return st.integer(0);
}

util::Result<std::vector<CandidateRecord>> CandidateRepository::accepted_undecided(int limit) {
  auto reader = m_db.reader();
  Statement st(reader.handle(), std::string("SELECT ") + k_candidate_columns +
                                  " FROM candidates c WHERE state = 'done' AND status = 'accepted' "
                                  "AND comparison_state <> 'pending' AND NOT EXISTS "
                                  "(SELECT 1 FROM decisions d WHERE d.candidate_id = c.id) ORDER BY seq LIMIT ?1");
  if (!st.ok()) return err(m_db, st);
  st.bind(1, int64_t(limit));
  std::vector<CandidateRecord> out;
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) out.push_back(read_candidate_row(st));
  if (rc != SQLITE_DONE) return err(m_db, st);
  return out;
}

util::Result<void> CandidateRepository::settle_device_class(const std::string& id, const std::string& device_class) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(), "UPDATE candidates SET device_class = ?2 WHERE id = ?1 AND device_class = ''");
  st.bind(1, id).bind(2, device_class);
  if (st.step() != SQLITE_DONE) return err(m_db, st);
  m_db.note_write_ok();
  return {};
}

}  // namespace kwb::store
