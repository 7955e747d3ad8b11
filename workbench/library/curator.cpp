#include "library/curator.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <variant>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/backend.hpp"
#include "core/verdict_parse.hpp"
#include "library/dispatch.hpp"
#include "library/evidence.hpp"
#include "library/promotion.hpp"
#include "library/referee.hpp"
#include "library/snapshot.hpp"
#include "library/spec_folders.hpp"
#include "store/candidate_repository.hpp"
#include "store/decision_repository.hpp"

namespace kwb::library {

namespace {

using Code = Outcome::Code;

Outcome error(Code code, std::string message) { return {code, std::move(message), {}}; }
Outcome ok(nlohmann::json body) { return {Code::ok, "", std::move(body)}; }

struct Loaded {
  store::CandidateRecord rec;
  core::Verdict verdict;
  core::Candidate cand;
};

// A finished candidate with its verdict and source, or the outcome that says why not.
// `what`: the action that needs the verdict ("promote", "compare"), for the refusal's message.
std::variant<Loaded, Outcome> load(store::Database& db, store::ObjectStore& objects, const std::string& id,
                                   const std::string& what) {
  store::CandidateRepository repo(db);
  auto rec = repo.find(id);
  if (!rec) return error(Code::internal, rec.error().what());
  if (!*rec) return error(Code::not_found, "no candidate " + id);
  using S = core::CandidateState;
  if ((*rec)->state == S::cancelled)
    return error(Code::refused, "candidate " + id + " was cancelled before it got a verdict: it was never validated or "
                                "timed, so there is nothing to " + what + " (submit its source again)");
  if ((*rec)->state != S::done)
    return error(Code::refused, "candidate " + id + " is still " + std::string(core::state_name((*rec)->state)) +
                                " and has no verdict yet: wait for it (kwb status " + id + " --wait), then " + what + " it");
  auto verdict = core::verdict_from_json((*rec)->verdict);
  if (!verdict) return error(Code::internal, "candidate " + id + ": stored verdict: " + verdict.error().what());
  auto source = objects.get((*rec)->source_sha256);
  if (!source) return error(Code::internal, "candidate " + id + ": source: " + source.error().what());
  const auto& r = **rec;
  core::Candidate cand{r.id, r.op, verdict->variant, r.backend, *source, r.source_name, r.flags, r.note};
  return Loaded{r, std::move(*verdict), std::move(cand)};
}

nlohmann::json entry_json(const DispatchEntry& e, const spec::Catalog& catalog) {
  const core::Spec* current = catalog.find(e.op);
  nlohmann::json configs = nlohmann::json::array();
  for (const auto& c : e.configs)
    configs.push_back({{"workload", c.workload}, {"params", c.params}, {"tune", c.tune},
                       {"median_ns", c.median_ns ? nlohmann::json(*c.median_ns) : nlohmann::json()}});
  nlohmann::json out = {
      {"op", e.op}, {"variant", e.variant}, {"backend", e.backend}, {"device_class", e.device_class},
      {"kernel", e.kernel}, {"entry", e.entry}, {"candidate", e.candidate}, {"configs", configs},
      // The spec version it was accepted under (null: seeded) and whether that is the current one;
      // an incumbent of another version is re-validated before it counts (docs/library.md).
      {"spec_version", e.spec_version > 0 ? nlohmann::json(e.spec_version) : nlohmann::json()},
      {"current_spec_version", current ? nlohmann::json(current->version) : nlohmann::json()}};
  if (!e.region.whole()) out["region"] = region_json(e.region);  // docs/library.md "Shape regions"
  return out;
}

// A candidate as the leaderboard and the review list show it.
nlohmann::json review_row(const store::CandidateRecord& r, const core::Verdict& v, Authors& authors) {
  nlohmann::json row = {{"id", r.id}, {"variant", v.variant}, {"backend", r.backend}, {"device", v.device},
                        {"geomean_vs_incumbent", nullptr}, {"beats_incumbent", nullptr},
                        {"note", r.note}, {"finished_at", r.finished_at.value_or("")}};
  row.update(provenance(r, authors));
  if (v.summary.geomean_vs_incumbent) row["geomean_vs_incumbent"] = *v.summary.geomean_vs_incumbent;
  if (v.summary.beats_incumbent) row["beats_incumbent"] = *v.summary.beats_incumbent;
  // The evidence behind the ratio: per bench workload the median ± and samples, and the
  // interleaved comparison's label, interval, blocks and samples.
  row["workloads"] = workload_evidence(v);
  nlohmann::json evidence = nlohmann::json::array();
  for (const auto& w : v.workloads)
    if (w.comparison)
      evidence.push_back({{"workload", w.name}, {"label", w.comparison->label}, {"ratio", w.comparison->ratio},
                          {"low", w.comparison->low}, {"high", w.comparison->high}, {"blocks", w.comparison->blocks},
                          {"samples", w.comparison->samples}});
  row["comparisons"] = evidence;
  row["promotable"] = v.summary.decision ? nlohmann::json(v.summary.decision->promotable) : nlohmann::json();
  row["promotable_reason"] = v.summary.decision ? nlohmann::json(v.summary.decision->reason) : nlohmann::json();
  return row;
}

}  // namespace

Outcome Curator::promote(const std::string& id, const std::string& reviewer, std::optional<int64_t> token_id) {
  std::lock_guard lock(m_decide);
  auto loaded = load(m_db, m_objects, id, "promote");
  if (auto* o = std::get_if<Outcome>(&loaded)) return *o;
  auto& l = std::get<Loaded>(loaded);
  // Promotion acts on a completed decision only (docs/library.md "Verdict first, decision second").
  if (l.rec.comparison_state == core::ComparisonState::pending)
    return error(Code::refused, "candidate " + id + " has its verdict, but its comparison with the incumbent is still "
                                "running: wait for its decision (kwb status " + id + " --wait), then promote it");
  return promote_locked(l.cand, l.verdict, reviewer, token_id, l.rec.device_class);
}

Outcome Curator::promote_evaluated(const core::Candidate& cand, const core::Verdict& verdict, const std::string& reviewer,
                                   const std::string& device_class) {
  std::lock_guard lock(m_decide);
  return promote_locked(cand, verdict, reviewer, std::nullopt, device_class);
}

Outcome Curator::promote_locked(const core::Candidate& cand, const core::Verdict& verdict, const std::string& reviewer,
                                std::optional<int64_t> token_id, const std::string& device_class) {
  const std::string& id = cand.id;
  store::DecisionRepository decisions(m_db);
  auto prior = decisions.find(id);
  if (!prior) return error(Code::internal, prior.error().what());
  if (*prior)
    return error(Code::conflict, fmt::format("candidate {} was already {} ({}){}", id, (*prior)->decision,
                                             (*prior)->decided_at,
                                             (*prior)->commit_id.empty() ? "" : " in commit " + (*prior)->commit_id));
  // A promotion whose commit landed but whose decision was not recorded (the process died in
  // between): the library already names this candidate, so record it now.
  if (auto landed = landed_promotion(m_repo, id)) {
    auto recorded =
        decisions.record({id, "promoted", "recovered after an interrupted promotion", landed->commit, token_id, ""});
    if (!recorded) {
      spdlog::warn("library: candidate {}: its promotion in commit {} (an interrupted promotion) is still not "
                   "recorded: {}", id, landed->commit, recorded.error().what());
      return error(Code::internal, "candidate " + id + " was promoted in commit " + landed->commit +
                                       " by an interrupted promotion, and its decision is still not recorded: " +
                                       recorded.error().what() + "; promote it again to record it");
    }
    if (!*recorded)
      return error(Code::conflict, "promoted in commit " + landed->commit + ", but another process recorded a "
                                   "decision on " + id + " meanwhile");
    return ok({{"id", id}, {"decision", "promoted"}, {"commit", landed->commit}, {"kernel", landed->kernel},
               {"recovered", true}});
  }
  // A verdict of an older spec version says nothing about the current one (docs/library.md).
  const core::Spec* current = m_catalog.find(cand.op);
  // (Verdicts stored before spec versions were recorded were all judged under version 1.)
  const int judged = verdict.spec_version > 0 ? verdict.spec_version : 1;
  if (current && judged != current->version)
    return error(Code::refused, fmt::format("candidate {} was judged under version {} of spec {}, which is now at "
                                            "version {}: submit it again to be judged under version {}",
                                            id, judged, cand.op, current->version, current->version));
  PromotionRequest req{cand, verdict, current, reviewer, device_class};
  auto result = library::promote(m_repo, req);
  if (!result) return error(Code::internal, result.error().what());
  switch (result->kind) {
    case PromotionResult::Kind::refused: return error(Code::refused, result->reason);
    case PromotionResult::Kind::conflict: return error(Code::conflict, result->reason);
    case PromotionResult::Kind::committed: break;
  }
  auto recorded = decisions.record({id, "promoted", "", result->commit, token_id, ""});
  if (!recorded) return error(Code::internal, "promoted in commit " + result->commit + " but not recorded: " +
                                                  recorded.error().what());
  if (!*recorded)
    return error(Code::conflict, "promoted in commit " + result->commit + ", but another process recorded a decision "
                                 "on " + id + " meanwhile");
  return ok({{"id", id}, {"decision", "promoted"}, {"commit", result->commit}, {"kernel", result->kernel},
             {"speedup", verdict.summary.geomean_vs_incumbent ? nlohmann::json(*verdict.summary.geomean_vs_incumbent)
                                                              : nlohmann::json()}});
}

Outcome Curator::reject(const std::string& id, const std::string& reason, std::optional<int64_t> token_id) {
  std::lock_guard lock(m_decide);
  if (reason.empty()) return error(Code::bad_request, "reason: a rejection says why");
  store::CandidateRepository repo(m_db);
  auto rec = repo.find(id);
  if (!rec) return error(Code::internal, rec.error().what());
  if (!*rec) return error(Code::not_found, "no candidate " + id);
  if (auto landed = landed_promotion(m_repo, id))
    return error(Code::conflict, "candidate " + id + " is the library's incumbent since commit " + landed->commit +
                                     ": it cannot be rejected");
  store::DecisionRepository decisions(m_db);
  auto done = decisions.record({id, "rejected", reason, "", token_id, ""});
  if (!done) return error(Code::internal, done.error().what());
  if (!*done) {
    auto prior = decisions.find(id);
    return error(Code::conflict, "candidate " + id + " was already " +
                                     (prior && *prior ? (*prior)->decision : std::string("decided")));
  }
  return ok({{"id", id}, {"decision", "rejected"}, {"reason", reason}});
}

Outcome Curator::diff(const std::string& id) {
  auto loaded = load(m_db, m_objects, id, "compare");
  if (auto* o = std::get_if<Outcome>(&loaded)) return *o;
  auto& l = std::get<Loaded>(loaded);
  auto snap = read_head(m_repo);
  if (!snap) return error(Code::internal, snap.error().what());
  const std::string* head = &snap->commit;
  const std::string cls = device_class(l.verdict, l.rec.device_class);
  const DispatchEntry* inc = snap->dispatch.incumbent(l.rec.op, l.verdict.variant, l.rec.backend, cls);
  if (snap->dispatch.regional(l.rec.op, l.verdict.variant, l.rec.backend, cls) && l.verdict.summary.incumbent)
    for (const auto* e : snap->dispatch.serving(l.rec.op, l.verdict.variant, l.rec.backend, cls))
      if (e->kernel == l.verdict.summary.incumbent->kernel) inc = e;  // the region's it was compared with
  std::string old_path = "/dev/null", old_text;  // git_patch adds the a/ and b/ prefixes
  if (inc) {
    auto src = m_repo.read(inc->kernel, *head);
    if (!src) return error(Code::internal, src.error().what());
    old_path = inc->kernel;
    old_text = *src;
  }
  std::string new_path = promoted_path(l.cand, l.verdict.variant);
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& w : l.verdict.workloads) {
    if (w.kind != "bench" || !w.time) continue;
    nlohmann::json row = {{"workload", w.name}, {"params", w.params}, {"candidate_ns", w.time->median_ns},
                          {"incumbent_ns", nullptr}, {"vs_incumbent", nullptr}};
    if (w.vs_incumbent) {
      row["vs_incumbent"] = *w.vs_incumbent;
      row["incumbent_ns"] = w.time->median_ns * *w.vs_incumbent;
    }
    row["samples"] = w.time->samples;
    row["stderr_pct"] = w.time->mean_stderr_pct;
    if (w.comparison) {  // the interleaved comparison: its own medians, interval and blocks
      const auto& c = *w.comparison;
      row["candidate_ns"] = c.candidate_ns;
      row["incumbent_ns"] = c.incumbent_ns;
      row["comparison"] = {{"label", c.label}, {"ratio", c.ratio}, {"low", c.low}, {"high", c.high},
                           {"confidence", c.confidence}, {"blocks", c.blocks}, {"samples", c.samples}};
    }
    rows.push_back(row);
  }
  const auto& s = l.verdict.summary;
  Authors authors(m_db);
  nlohmann::json same_source = nlohmann::json::array();  // other candidates with exactly this source
  store::CandidateFilter same;
  same.source_sha256 = l.rec.source_sha256;
  same.limit = 50;
  if (auto others = store::CandidateRepository(m_db).list(same))
    for (const auto& o : *others)
      if (o.id != id) same_source.push_back({{"id", o.id}, {"op", o.op}, {"state", std::string(core::state_name(o.state))}, {"status", o.status ? nlohmann::json(*o.status) : nlohmann::json()}});
  nlohmann::json body = provenance(l.rec, authors);
  body["same_source"] = same_source;
  body.update(nlohmann::json{{"id", id},
             {"op", l.rec.op},
             {"variant", l.verdict.variant},
             {"backend", l.rec.backend},
             {"status", core::status_name(l.verdict.status)},
             {"incumbent", inc ? nlohmann::json{{"kernel", inc->kernel}, {"commit", *head}, {"device_class", inc->device_class}}
                               : nlohmann::json()},
             {"compared_with", s.incumbent ? nlohmann::json{{"kernel", s.incumbent->kernel}, {"commit", s.incumbent->commit}}
                                           : nlohmann::json()},
             {"beats_incumbent", s.beats_incumbent ? nlohmann::json(*s.beats_incumbent) : nlohmann::json()},
             {"geomean_vs_incumbent", s.geomean_vs_incumbent ? nlohmann::json(*s.geomean_vs_incumbent) : nlohmann::json()},
             {"decision", s.decision ? nlohmann::json(s.decision->reason) : nlohmann::json()},
             {"machine", s.machine ? nlohmann::json{{"busy", s.machine->busy}, {"detail", s.machine->detail}}
                                   : nlohmann::json()},
             {"workloads", rows},
             {"resources", s.resources ? core::to_json(*s.resources) : nlohmann::json()},
             {"diff", unified_diff(old_path, old_text, new_path, l.cand.source)}});
  return ok(body);
}

Outcome Curator::leaderboard(const std::string& op, store::LeaderboardQuery q) {
  if (!m_catalog.find(op)) return error(Code::not_found, "no spec for op '" + op + "'");
  q.op = op;
  auto page = store::leaderboard_page(m_db, q);
  if (!page) return error(Code::internal, page.error().what());
  store::CandidateRepository repo(m_db);
  Authors authors(m_db);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : page->entries) {
    auto r = repo.find(e.id);
    if (!r) return error(Code::internal, r.error().what());
    if (!*r) continue;  // gone between the two reads
    auto v = core::verdict_from_json((*r)->verdict);
    if (!v) continue;
    nlohmann::json row = review_row(**r, *v, authors);
    row["decision"] = e.decision ? nlohmann::json(*e.decision) : nlohmann::json();
    row["same_source_as"] = e.leader == e.id ? nlohmann::json() : nlohmann::json(e.leader);
    out.push_back(std::move(row));
  }
  return ok({{"op", op}, {"candidates", out}, {"distinct_sources", page->distinct_sources}, {"total", page->total},
             {"offset", q.offset}, {"limit", q.limit}});
}

Outcome Curator::pending_review(const std::optional<std::string>& op, int limit) {
  if (op && !m_catalog.find(*op)) return error(Code::not_found, "no spec for op '" + *op + "'");
  store::CandidateRepository repo(m_db);
  auto recs = repo.accepted_undecided(1 << 20);
  if (!recs) return error(Code::internal, recs.error().what());
  Authors authors(m_db);
  nlohmann::json rows = nlohmann::json::array();
  size_t pending = 0;
  for (const auto& r : *recs) {
    if (op && r.op != *op) continue;
    auto v = core::verdict_from_json(r.verdict);
    if (!v || !v->summary.beats_incumbent.value_or(false)) continue;  // a winner, or nothing to decide
    ++pending;
    if (rows.size() >= size_t(std::max(1, limit))) continue;
    nlohmann::json row = review_row(r, *v, authors);
    row["op"] = r.op;
    // Why a reviewer is needed: ci promote leaves launchers (host code of their own) to a person.
    row["needs_reviewer"] = core::reviewer_only(r.backend);
    rows.push_back(std::move(row));
  }
  return ok({{"candidates", rows}, {"pending", pending}});
}

Outcome Curator::library(const std::string& op) {
  if (!op.empty() && !m_catalog.find(op)) return error(Code::not_found, "no spec for op '" + op + "'");
  auto snap = read_head(m_repo);
  if (!snap) return error(Code::internal, snap.error().what());
  const std::string* head = &snap->commit;
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& e : snap->dispatch.entries) {
    if (!op.empty() && e.op != op) continue;
    nlohmann::json entry = entry_json(e, m_catalog);
    if (!op.empty()) {  // one op: its incumbents' sources and metadata too (the agent's starting point)
      auto source = m_repo.read(e.kernel, snap->commit);
      entry["source"] = source ? nlohmann::json(*source) : nlohmann::json();
      auto dot = e.kernel.rfind('.');
      auto meta = m_repo.read(e.kernel.substr(0, dot) + ".json", snap->commit);
      nlohmann::json parsed = meta ? nlohmann::json::parse(*meta, nullptr, false) : nlohmann::json();
      entry["meta"] = parsed.is_discarded() ? nlohmann::json() : parsed;
    }
    entries.push_back(std::move(entry));
  }
  nlohmann::json body = {{"commit", *head}, {"path", m_repo.path().string()}, {"entries", entries}};
  if (!op.empty()) {
    auto log = m_repo.log(op, 50);
    if (!log) return error(Code::internal, log.error().what());
    nlohmann::json history = nlohmann::json::array();
    for (const auto& c : *log)
      history.push_back({{"commit", c.id}, {"summary", c.summary}, {"time", c.time}, {"trailers", c.trailers}});
    body["op"] = op;
    body["history"] = history;
    auto spec_log = m_repo.log(k_specs_prefix + op, 50);
    if (!spec_log) return error(Code::internal, spec_log.error().what());
    nlohmann::json spec_history = nlohmann::json::array();
    for (const auto& c : *spec_log)
      spec_history.push_back({{"commit", c.id}, {"summary", c.summary}, {"time", c.time}, {"trailers", c.trailers}});
    body["spec_history"] = spec_history;
  }
  return ok(body);
}

}  // namespace kwb::library
