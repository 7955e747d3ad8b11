#include "store/candidate_rows.hpp"

namespace kwb::store {

const char* const k_candidate_columns =
    "id, seq, token_id, op, variant, backend, source_sha256, source_name, flags, note, parent, idempotency_key, "
    "state, cancel_requested, attempts, status, verdict, created_at, updated_at, finished_at, bench, device_class, "
    "profile, comparison_state, comparison, comparison_attempts";

namespace {

std::vector<std::string> string_list(const std::string& text) {
  std::vector<std::string> out;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_array())
    for (const auto& s : j)
      if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

nlohmann::json json_or_null(const Statement& st, int col) {
  if (st.is_null(col)) return nullptr;
  auto j = nlohmann::json::parse(st.text(col), nullptr, false);
  return j.is_discarded() ? nlohmann::json(nullptr) : j;
}

}  // namespace

CandidateRecord read_candidate_row(const Statement& st) {
  CandidateRecord r;
  r.id = st.text(0);
  r.seq = st.integer(1);
  if (!st.is_null(2)) r.token_id = st.integer(2);
  r.op = st.text(3);
  r.variant = st.text(4);
  r.backend = st.text(5);
  r.source_sha256 = st.text(6);
  r.source_name = st.text(7);
  r.flags = string_list(st.text(8));
  r.note = st.text(9);
  if (!st.is_null(10)) r.parent = st.text(10);
  if (!st.is_null(11)) r.idempotency_key = st.text(11);
  // The table's CHECK constraints hold these to the names core/candidate_state.hpp knows.
  r.state = core::parse_state(st.text(12)).value_or(core::CandidateState::queued);
  r.cancel_requested = st.integer(13) != 0;
  r.attempts = int(st.integer(14));
  if (!st.is_null(15)) r.status = st.text(15);
  r.verdict = json_or_null(st, 16);
  r.created_at = st.text(17);
  r.updated_at = st.text(18);
  if (!st.is_null(19)) r.finished_at = st.text(19);
  r.bench = string_list(st.text(20));
  r.device_class = st.text(21);
  r.profile = st.integer(22) != 0;
  r.comparison_state = core::parse_comparison_state(st.text(23)).value_or(core::ComparisonState::none);
  r.comparison = json_or_null(st, 24);
  r.comparison_attempts = int(st.integer(25));
  return r;
}

util::Result<void> append_events(Database& db, const std::string& id, const Events& events) {
  for (const auto& [kind, data] : events) {
    Statement st(db.handle(), "INSERT INTO events (candidate_id, kind, data) VALUES (?1, ?2, ?3)");
    st.bind(1, id).bind(2, kind).bind(3, data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (st.step() != SQLITE_DONE) return db.failure(st, "event of " + id);
  }
  return {};
}

}  // namespace kwb::store
