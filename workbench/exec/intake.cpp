#include "exec/intake.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "store/candidate_repository.hpp"
#include "store/idempotency_repository.hpp"

namespace kwb::exec {

namespace {

std::unexpected<Refusal> refused(Refusal r) { return std::unexpected(std::move(r)); }
std::unexpected<Refusal> store_failed(const util::Error& e) { return std::unexpected(store_refusal(e)); }

// An Idempotency-Key bound by this request is released again if the submission fails before
// its candidate is stored.
class KeyClaim {
 public:
  KeyClaim(store::IdempotencyRepository& keys, int64_t token, const std::string& key, std::string digest)
      : m_keys(keys), m_token(token), m_key(key), m_digest(std::move(digest)) {}
  ~KeyClaim() {
    if (m_fresh && !m_kept)
      if (auto r = m_keys.release(m_token, m_key, m_digest); !r)  // a retry with the same body still matches it
        spdlog::warn("Idempotency-Key '{}' stays bound to a submission that failed: {}", m_key, r.error().what());
  }
  util::Result<store::KeyBinding> take() {
    auto b = m_keys.claim(m_token, m_key, m_digest);
    m_fresh = b && b->fresh;
    return b;
  }
  void keep() { m_kept = true; }

 private:
  store::IdempotencyRepository& m_keys;
  int64_t m_token;
  const std::string& m_key;
  std::string m_digest;
  bool m_fresh = false, m_kept = false;
};

}  // namespace

Intake::Intake(store::Database& db, store::ObjectStore& objects, const spec::Catalog& catalog, Ledger& ledger,
               std::function<void(const store::CandidateRecord&)> schedule, IntakeConfig cfg)
    : m_db(db), m_objects(objects), m_catalog(catalog), m_ledger(ledger), m_schedule(std::move(schedule)),
      m_cfg(std::move(cfg)) {}

std::optional<Refusal> Intake::check_quota(int64_t token_id) {
  auto active = store::CandidateRepository(m_db).count_active(token_id == 0 ? std::nullopt : std::optional(token_id));
  if (!active) return store_refusal(active.error());
  if (*active < m_cfg.queue_quota) return std::nullopt;
  return Refusal{RefusalCode::quota, "queue_quota",
                 "this token has " + std::to_string(*active) + " candidates queued or in flight (quota " +
                     std::to_string(m_cfg.queue_quota) + "); wait for verdicts",
                 {}, 5};
}

std::expected<Receipt, Refusal> Intake::admit(store::CandidateRecord rec) {
  bool existing = false;
  auto inserted = store::CandidateRepository(m_db).insert(rec, &existing);
  if (!inserted) return store_failed(inserted.error());
  if (existing) return Receipt{inserted->id, inserted->state, true, inserted->parent};  // a concurrent submit won the key
  m_ledger.submitted(*inserted);
  if (m_schedule) m_schedule(*inserted);
  return Receipt{inserted->id, core::CandidateState::queued, false, inserted->parent};
}

std::expected<Receipt, Refusal> Intake::submit(int64_t token_id, const std::string& body,
                                               const std::optional<std::string>& idempotency_key) {
  auto sub = parse_submission(body, m_catalog, m_cfg.rules);
  if (!sub) return refused(sub.error());
  if (idempotency_key) {
    if (idempotency_key->empty() || idempotency_key->size() > 200)
      return refused({RefusalCode::invalid, "invalid_header", "Idempotency-Key: 1 to 200 characters"});
    sub->rec.idempotency_key = *idempotency_key;
  }
  if (token_id != 0) sub->rec.token_id = token_id;
  // A key is bound to the digest of its first body: the same key with another body is refused,
  // so that an agent never follows the verdict of a submission it did not make.
  store::IdempotencyRepository keys(m_db);
  std::optional<KeyClaim> claim;
  if (sub->rec.idempotency_key) {
    const std::string& key = *sub->rec.idempotency_key;
    claim.emplace(keys, token_id, key, sub->request_sha256);
    auto bound = claim->take();
    if (!bound) return store_failed(bound.error());
    auto seen = store::CandidateRepository(m_db).find_by_idempotency_key(sub->rec.token_id, key);
    if (!seen) return store_failed(seen.error());
    if (bound->request_sha256 != sub->request_sha256)
      return refused({RefusalCode::unprocessable, "idempotency_conflict",
                      "Idempotency-Key '" + key + "' was used before with a different body" +
                          (*seen ? " (candidate " + (*seen)->id + ")" : std::string()) +
                          "; send a new key for a new submission"});
    // A replayed key answers with its candidate whatever the quota; a new key counts like any
    // other submission (so fresh keys cannot get around the quota).
    if (*seen) return Receipt{(*seen)->id, (*seen)->state, true, (*seen)->parent};
  }
  if (auto q = check_quota(token_id)) return refused(*q);
  auto sha = m_objects.put(sub->source);
  // A full disk: the daemon evicts its caches, then the write is tried once more.
  if (!sha && sha.error().kind == util::ErrorKind::storage_full && m_db.relieve_space()) sha = m_objects.put(sub->source);
  if (!sha) return store_failed(sha.error());
  sub->rec.source_sha256 = *sha;
  auto receipt = admit(std::move(sub->rec));
  if (receipt && claim) claim->keep();
  return receipt;
}

std::expected<Receipt, Refusal> Intake::profile(int64_t token_id, const std::string& id) {
  auto found = store::CandidateRepository(m_db).find(id);
  if (!found) return store_failed(found.error());
  if (!*found) return refused({RefusalCode::not_found, "not_found", "no candidate " + id});
  const auto& src = **found;
  const auto& backends = m_cfg.rules.backends;
  if (std::find(backends.begin(), backends.end(), src.backend) == backends.end())
    return refused({RefusalCode::unprocessable, "unsupported_backend",
                    "this daemon does not evaluate '" + src.backend + "' candidates"});
  store::CandidateRecord rec;
  rec.op = src.op;
  rec.variant = src.variant.empty() && src.verdict.is_object() ? src.verdict.value("variant", std::string()) : src.variant;
  rec.backend = src.backend;
  rec.source_sha256 = src.source_sha256;
  rec.source_name = src.source_name;
  rec.flags = src.flags;
  rec.bench = src.bench;
  rec.device_class = src.device_class;  // the class it asked for (or was evaluated on) is kept
  rec.note = "profile of " + id;
  rec.parent = id;
  rec.profile = true;
  if (token_id != 0) rec.token_id = token_id;
  if (auto q = check_quota(token_id)) return refused(*q);
  return admit(std::move(rec));
}

std::expected<Receipt, Refusal> Intake::library_kernel(int64_t token_id, const core::Candidate& k) {
  auto sha = m_objects.put(k.source);
  if (!sha) return store_failed(sha.error());
  store::CandidateRecord rec;
  rec.op = k.op;
  rec.variant = k.variant;
  rec.backend = k.backend;
  rec.source_sha256 = *sha;
  rec.source_name = k.source_name;
  rec.flags = k.flags;
  rec.note = k.note;
  if (token_id != 0) rec.token_id = token_id;
  return admit(std::move(rec));
}

}  // namespace kwb::exec
