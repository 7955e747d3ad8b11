#include "exec/ledger.hpp"

#include <spdlog/spdlog.h>

#include "core/verdict_comparison.hpp"
#include "core/verdict_parse.hpp"
#include "eval/profile_request.hpp"
#include "store/event_repository.hpp"
#include "util/log.hpp"

namespace kwb::exec {

using core::CandidateState;
using core::ComparisonState;

namespace {

std::string text_of(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

// One line per verdict (docs/api.md "Logs").
void log_verdict(const std::string& id, const nlohmann::json& v) {
  nlohmann::ordered_json fields = {{"candidate", id},          {"op", text_of(v, "op")},
                                   {"variant", text_of(v, "variant")}, {"backend", text_of(v, "backend")},
                                   {"status", text_of(v, "status")}};
  if (v.contains("summary") && v["summary"].is_object()) {
    const auto& s = v["summary"];
    if (s.contains("beats_incumbent") && s["beats_incumbent"].is_boolean()) fields["beats_incumbent"] = s["beats_incumbent"];
    if (s.contains("wall_ms")) fields["wall_ms"] = s["wall_ms"];
  }
  const std::string reason = text_of(v, "reason");
  fields["reason"] = reason.size() > 300 ? reason.substr(0, 300) + "..." : reason;
  util::log_event(spdlog::level::info, "verdict", fields);
}

}  // namespace

Ledger::Ledger(store::Database& db, EventHub& hub, LedgerConfig cfg) : m_db(db), m_hub(hub), m_cfg(cfg) {}

Ledger::~Ledger() { stop(); }

void Ledger::start() {
  std::lock_guard lock(m_mutex);
  if (m_retry_thread.joinable()) return;
  m_stopping = false;
  m_retry_thread = std::thread([this] { retry_worker(); });
}

void Ledger::stop() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_retry_cv.notify_all();
  if (m_retry_thread.joinable()) m_retry_thread.join();
  std::lock_guard lock(m_mutex);
  const size_t left = m_unwritten_verdicts.size() + m_unwritten_decisions.size();
  if (left > 0)
    spdlog::error("ledger: stopping with {} verdict(s) or decision(s) not stored ({}): those candidates are evaluated "
                  "or compared again at the next start", left, m_last_write_error);
}

void Ledger::event(const std::string& id, const std::string& kind, const nlohmann::json& data) {
  store::EventRepository events(m_db);
  if (auto r = events.append(id, kind, data); !r) spdlog::error("event {} for {} not stored: {}", kind, id, r.error().what());
  m_hub.publish(id);
}

void Ledger::submitted(const store::CandidateRecord& rec) {
  {
    std::lock_guard lock(m_mutex);
    m_live[rec.id] = Live{CandidateState::queued, false, rec.profile};
  }
  event(rec.id, "state", {{"state", "queued"}});
}

std::optional<Ledger::Live> Ledger::live(const std::string& id) {
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_live.find(id); it != m_live.end()) return it->second;
  }
  auto found = store::CandidateRepository(m_db).find(id);
  if (!found || !*found) return std::nullopt;
  const auto& rec = **found;
  Live l{rec.state, rec.cancel_requested, rec.profile};
  const bool tracked = !core::is_terminal(rec.state) || rec.comparison_state == ComparisonState::pending;
  std::lock_guard lock(m_mutex);
  if (tracked) m_live.emplace(id, l);
  return l;
}

util::Result<Recovery> Ledger::recover(const std::set<std::string>& attached) {
  store::CandidateRepository repo(m_db);
  auto pending = repo.unfinished();
  if (!pending) return std::unexpected(pending.error());
  auto comparisons = repo.pending_comparisons();
  if (!comparisons) return std::unexpected(comparisons.error());
  Recovery out;
  const int max_attempts = std::max(1, m_cfg.max_attempts);
  for (const auto& rec : *pending) {
    {
      std::lock_guard lock(m_mutex);
      m_live[rec.id] = Live{rec.state, rec.cancel_requested, rec.profile};
    }
    if (attached.contains(rec.id)) continue;
    if (rec.attempts >= max_attempts) {
      // Each of its evaluations ended with the daemon (a crash, kill -9, power loss): a third run
      // could take the daemon down again.
      spdlog::warn("ledger: {} was interrupted {} times: error verdict instead of another run", rec.id, rec.attempts);
      finish_error(rec, "evaluation interrupted " + std::to_string(rec.attempts) +
                            " times: the daemon stopped (crash, kill or restart) while evaluating this candidate each "
                            "time, so it is not run again; resubmit it if the cause was unrelated to the candidate");
      continue;
    }
    if (rec.state != CandidateState::queued)
      advance(rec.id, CandidateState::queued,
              {{"detail", "requeued at start-up: the previous run stopped while " + std::string(core::state_name(rec.state))}});
    out.evaluate.push_back(rec);
  }
  for (const auto& rec : *comparisons) {
    std::lock_guard lock(m_mutex);
    m_live[rec.id] = Live{rec.state, rec.cancel_requested, rec.profile};
    out.compare.push_back(rec);
  }
  return out;
}

util::Result<int> Ledger::begin_attempt(const std::string& id) {
  auto l = live(id);
  if (!l || core::is_terminal(l->state)) return 0;
  if (l->state != CandidateState::queued) {
    spdlog::error("ledger: {}: an attempt cannot start in state {} (only a queued candidate starts one)", id,
                  core::state_name(l->state));
    return 0;
  }
  auto attempt = store::CandidateRepository(m_db).begin_attempt(id);
  if (!attempt || *attempt == 0) return attempt;
  {
    std::lock_guard lock(m_mutex);
    m_live[id].state = CandidateState::analyzing;
  }
  event(id, "state", {{"state", "analyzing"}, {"attempt", *attempt}});
  return attempt;
}

bool Ledger::advance(const std::string& id, CandidateState to, const nlohmann::json& detail) {
  auto l = live(id);
  if (!l) {
    spdlog::error("ledger: no candidate {} to move to {}", id, core::state_name(to));
    return false;
  }
  if (core::is_terminal(l->state)) return false;  // cancelled or finished meanwhile: nothing more
  if (!core::legal_transition(l->state, to)) {
    spdlog::error("ledger: {}: refused the move {} -> {} (not a legal transition)", id, core::state_name(l->state),
                  core::state_name(to));
    return false;
  }
  auto moved = store::CandidateRepository(m_db).set_state(id, l->state, to);
  if (!moved) {
    spdlog::error("ledger: {}: state {} not stored: {}", id, core::state_name(to), moved.error().what());
    return false;
  }
  if (!*moved) {  // another writer moved it (a cancellation while queued): read it again
    std::lock_guard lock(m_mutex);
    m_live.erase(id);
    return false;
  }
  {
    std::lock_guard lock(m_mutex);
    m_live[id].state = to;
  }
  nlohmann::json data = detail.is_object() ? detail : nlohmann::json::object();
  data["state"] = std::string(core::state_name(to));
  event(id, "state", data);
  return true;
}

void Ledger::stage_finished(const std::string& id, int attempt, std::string_view stage, const std::string& detail) {
  if (auto r = store::CandidateRepository(m_db).record_stage(id, attempt, std::string(stage), 0, detail); !r)
    spdlog::warn("ledger: {}: stage {} of attempt {} not recorded: {}", id, stage, attempt, r.error().what());
}

util::Result<CandidateState> Ledger::request_cancel(const std::string& id) {
  (void)live(id);  // tracked from here on, whatever the state
  bool cancelled_now = false;
  const store::Events events = {{"state", {{"state", "cancelled"}, {"detail", "cancelled while queued"}}}};
  auto state = store::CandidateRepository(m_db).cancel(id, &cancelled_now, events);
  if (!state) return state;
  {
    std::lock_guard lock(m_mutex);
    if (*state == CandidateState::cancelled) {
      m_live.erase(id);
    } else if (auto it = m_live.find(id); it != m_live.end() && !core::is_terminal(*state)) {
      it->second.cancel = true;
    }
  }
  if (cancelled_now) m_hub.publish(id);
  return state;
}

bool Ledger::cancel_requested(const std::string& id) const {
  std::lock_guard lock(m_mutex);
  auto it = m_live.find(id);
  return it != m_live.end() && it->second.cancel;
}

void Ledger::mark_cancelled(const std::string& id) {
  auto r = store::CandidateRepository(m_db).mark_cancelled(id, {{"state", {{"state", "cancelled"}}}});
  if (!r) spdlog::error("ledger: {}: cancellation not stored: {}", id, r.error().what());
  {
    std::lock_guard lock(m_mutex);
    m_live.erase(id);
  }
  if (r && *r) m_hub.publish(id);
}

void Ledger::finish(const std::string& id, const core::Verdict& v, ComparisonState comparison) {
  core::Verdict verdict = v;
  verdict.candidate = id;
  store_verdict(id, core::to_json(verdict), comparison);
}

void Ledger::finish_json(const std::string& id, nlohmann::json verdict) {
  verdict["candidate"] = id;
  const bool compared = verdict.contains("summary") && verdict["summary"].is_object() &&
                        verdict["summary"].contains("decision") && !verdict["summary"]["decision"].is_null();
  store_verdict(id, std::move(verdict), compared ? ComparisonState::done : ComparisonState::none);
}

void Ledger::finish_error(const store::CandidateRecord& rec, const std::string& reason) {
  core::Verdict v;
  v.op = rec.op;
  v.variant = rec.variant;
  v.backend = rec.backend;
  v.status = core::Status::error;
  v.reason = reason;
  finish(rec.id, v);
}

void Ledger::store_verdict(const std::string& id, nlohmann::json json, ComparisonState comparison) {
  // A profile asked for in the submission: the verdict says what came of it (eval/profile_request.hpp).
  if (!json.contains("profile") || json["profile"].is_null()) {
    auto l = live(id);
    if (l && l->profile)
      json["profile"] = core::to_json(eval::profile_outcome(text_of(json, "backend"), text_of(json, "status")));
  }
  log_verdict(id, json);
  Unwritten u{std::move(json), comparison, nullptr};
  if (!write(id, u)) keep(id, std::move(u));
}

util::Result<int> Ledger::begin_comparison(const std::string& id) {
  return store::CandidateRepository(m_db).begin_comparison(id);
}

void Ledger::decide(const std::string& id, const core::Verdict& judged) {
  auto found = store::CandidateRepository(m_db).find(id);
  nlohmann::json stored_json;
  {
    std::lock_guard lock(m_mutex);  // a verdict still waiting for the store is the stored one
    if (auto it = m_unwritten_verdicts.find(id); it != m_unwritten_verdicts.end()) stored_json = it->second.verdict;
  }
  if (stored_json.is_null() && found && *found) stored_json = (*found)->verdict;
  auto stored = core::verdict_from_json(stored_json);
  if (!stored) {
    spdlog::error("ledger: {}: its decision has no stored verdict to go with ({}); not stored", id,
                  stored.error().what());
    return;
  }
  auto part = core::merge_comparison(*stored, judged);
  auto verdict = core::to_json(part.merged);
  verdict["candidate"] = id;
  Unwritten u{std::move(verdict), ComparisonState::done, std::move(part.comparison)};
  bool verdict_waits = false;
  {
    std::lock_guard lock(m_mutex);
    verdict_waits = m_unwritten_verdicts.contains(id);
  }
  if (verdict_waits || !write(id, u)) keep(id, std::move(u));
}

bool Ledger::write(const std::string& id, const Unwritten& u) {
  store::CandidateRepository repo(m_db);
  const bool decision = !u.decision.is_null();
  // The events that announce it are written in the same transaction (store::Events).
  store::Events events;
  if (decision) {
    nlohmann::json data = {{"state", "done"}};
    for (const char* k : {"promotable", "reason", "geomean_vs_incumbent", "failure"})
      if (u.decision.contains(k)) data[k] = u.decision[k];
    events.emplace_back("comparison", std::move(data));
  } else {
    const std::string comparison(core::comparison_state_name(u.comparison));
    events.emplace_back("verdict", nlohmann::json{{"status", u.verdict.value("status", nlohmann::json())},
                                                  {"reason", u.verdict.value("reason", nlohmann::json())},
                                                  {"comparison", comparison}});
    events.emplace_back("state", nlohmann::json{{"state", "done"}, {"comparison", comparison}});
  }
  auto written = decision ? repo.decide(id, u.verdict, u.decision, events) : repo.finish(id, u.verdict, u.comparison, events);
  if (!written) {
    std::lock_guard lock(m_mutex);
    m_last_write_error = written.error().what();
    return false;
  }
  if (!*written) return true;  // the first stands (already done, decided or cancelled)
  {
    std::lock_guard lock(m_mutex);
    if (!decision) ++m_finished;
    if (decision || u.comparison != ComparisonState::pending) m_live.erase(id);
    else if (auto it = m_live.find(id); it != m_live.end()) it->second.state = CandidateState::done;
  }
  m_hub.publish(id);
  return true;
}

void Ledger::keep(const std::string& id, Unwritten u) {
  {
    std::lock_guard lock(m_mutex);
    spdlog::error("{} for {} not stored, kept and retried every {} ms: {}", u.decision.is_null() ? "verdict" : "decision",
                  id, m_cfg.retry_interval.count(), m_last_write_error);
    (u.decision.is_null() ? m_unwritten_verdicts : m_unwritten_decisions)[id] = std::move(u);
  }
  m_retry_cv.notify_all();
}

void Ledger::retry_worker() {
  std::unique_lock lock(m_mutex);
  while (true) {
    m_retry_cv.wait(lock, [&] { return m_stopping || !m_unwritten_verdicts.empty() || !m_unwritten_decisions.empty(); });
    if (m_stopping) return;
    if (m_retry_cv.wait_for(lock, m_cfg.retry_interval, [&] { return m_stopping; })) return;
    // Verdicts first: a decision is written after its verdict.
    for (auto* pending : {&m_unwritten_verdicts, &m_unwritten_decisions}) {
      auto copy = *pending;
      lock.unlock();
      std::vector<std::string> stored;
      for (const auto& [id, u] : copy) {
        bool waits = false;
        if (pending == &m_unwritten_decisions) {
          std::lock_guard inner(m_mutex);
          waits = m_unwritten_verdicts.contains(id);
        }
        if (!waits && write(id, u)) stored.push_back(id);
      }
      lock.lock();
      for (const auto& id : stored) {
        pending->erase(id);
        spdlog::info("{} for {} stored on a retry", pending == &m_unwritten_verdicts ? "verdict" : "decision", id);
      }
    }
  }
}

LedgerStats Ledger::stats() const {
  std::lock_guard lock(m_mutex);
  const size_t unwritten = m_unwritten_verdicts.size() + m_unwritten_decisions.size();
  return {m_finished, unwritten, unwritten ? m_last_write_error : std::string()};
}

}  // namespace kwb::exec
