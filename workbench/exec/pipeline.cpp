#include "exec/pipeline.hpp"

#include <stdexcept>

#include <spdlog/spdlog.h>

#include "core/verdict_parse.hpp"
#include "exec/pipeline_lane.hpp"
#include "store/candidate_repository.hpp"

namespace kwb::exec {

Pipeline::Pipeline(store::Database& db, store::ObjectStore& objects, EvaluationFactory factory, Ledger& ledger,
                   PipelineConfig cfg)
    : m_db(db), m_objects(objects), m_factory(std::move(factory)), m_ledger(ledger), m_cfg(std::move(cfg)) {}

Pipeline::~Pipeline() { stop(); }

util::Result<void> Pipeline::start() {
  std::set<std::string> attached;  // still running on the executor (a restart): not run again
  if (m_cfg.executor) {
    auto judge = m_cfg.judge;
    auto source_of = [this](const store::CandidateRecord& rec) { return m_objects.get(rec.source_sha256); };
    RemoteVerdictFn on_verdict;
    if (judge)  // the policy's word on a remote worker's decided verdict (auto-promotion)
      on_verdict = [judge, source_of](const store::CandidateRecord& rec, nlohmann::json& json) {
        auto v = core::verdict_from_json(json);
        auto source = source_of(rec);
        if (!v || !source) {
          spdlog::warn("candidate {}: its verdict from the executor was not considered for promotion: {}", rec.id,
                       !v ? v.error().what() : source.error().what());
          return;
        }
        judge->decided(rec, *source, *v);
        json["reason"] = v->reason;  // the policy's word on it
      };
    auto a = m_cfg.executor->start(m_ledger, std::move(on_verdict));
    if (!a) return std::unexpected(a.error());
    attached = std::move(*a);
    if (!attached.empty())
      spdlog::info("pipeline: re-attached to {} candidate(s) still running on the {} executor", attached.size(),
                   m_cfg.executor->name());
  }
  auto recovery = m_ledger.recover(attached);
  if (!recovery) return std::unexpected(recovery.error());
  for (const auto& rec : recovery->evaluate) m_queue.push(rec.token_id.value_or(0), rec.id);
  for (const auto& rec : recovery->compare) {
    {
      std::lock_guard lock(m_mutex);
      m_compare_only.insert(rec.id);
    }
    m_queue.push(rec.token_id.value_or(0), rec.id);
  }
  if (!recovery->evaluate.empty())
    spdlog::info("pipeline: {} unfinished candidate(s) queued again", recovery->evaluate.size());
  if (!recovery->compare.empty())
    spdlog::info("pipeline: {} interrupted comparison(s) queued again", recovery->compare.size());
  {
    std::lock_guard lock(m_mutex);
    for (const auto& l : m_cfg.lanes)
      if (l.device) start_lane(l.device->device.key, queue_for(l.queue), l.device, l.depth);
  }
  for (int i = 0; i < std::max(1, m_cfg.compile_workers); ++i) m_workers.emplace_back([this] { compile_worker(); });
  return {};
}

void Pipeline::stop() {
  {
    std::lock_guard lock(m_mutex);
    if (m_stopping) return;
    m_stopping = true;
    for (auto& [key, queue] : m_queues) queue->cv.notify_all();
    for (auto& lane : m_lanes) lane->admission.notify_all();
  }
  if (m_cfg.executor) m_cfg.executor->stop();
  m_backlog_cv.notify_all();
  m_queue.stop();
  for (auto& t : m_workers)
    if (t.joinable()) t.join();
  std::lock_guard lock(m_mutex);
  for (auto& lane : m_lanes)
    for (auto& thread : lane->threads)
      if (thread.joinable()) {
        m_mutex.unlock();
        thread.join();
        m_mutex.lock();
      }
}

void Pipeline::schedule(const store::CandidateRecord& rec) { m_queue.push(rec.token_id.value_or(0), rec.id); }

util::Result<core::CandidateState> Pipeline::cancel(const std::string& id) {
  auto state = m_ledger.request_cancel(id);
  if (!state) return state;
  if (*state == core::CandidateState::cancelled) {
    m_queue.remove(id);
  } else if (!core::is_terminal(*state)) {
    {
      std::lock_guard lock(m_mutex);
      if (auto it = m_on_device_now.find(id); it != m_on_device_now.end()) it->second->cancel();
    }
    if (m_cfg.executor) m_cfg.executor->cancel(id);
  }
  return state;
}

PipelineStats Pipeline::stats() const {
  const int remote = m_cfg.executor ? int(m_cfg.executor->in_flight()) : 0;
  const LedgerStats ledger = m_ledger.stats();
  std::lock_guard lock(m_mutex);
  PipelineStats st{m_queue.size(), m_backlog, m_compiling, m_on_device + remote, ledger.finished, ledger.unwritten,
                   ledger.last_write_error, {}};
  for (const auto& l : m_lanes) {
    LaneStats ls{l->key, l->queue_key, "", {}, l->finished};
    for (const auto& c : l->candidates)
      if (!c.empty()) ls.candidates.push_back(c);
    if (!ls.candidates.empty()) ls.candidate = ls.candidates.front();
    st.lanes.push_back(std::move(ls));
  }
  return st;
}

void Pipeline::guarded(const std::string& id, const char* where, const std::function<void()>& body) {
  std::string what;
  try {
    body();
    return;
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "an exception of unknown type";
  }
  spdlog::error("pipeline: {} threw during {}: {}", id, where, what);
  try {
    store::CandidateRepository repo(m_db);
    auto found = repo.find(id);
    store::CandidateRecord rec;
    if (found && *found) rec = **found;
    rec.id = id;
    const std::string reason = std::string("internal error during ") + where + ": " + what +
                               " (the evaluation was stopped; a failure of the workbench, not a judgement of the "
                               "candidate: report it with this candidate's id)";
    if (rec.comparison_state == core::ComparisonState::pending) {  // the verdict stands; the decision says why
      auto stored = core::verdict_from_json(rec.verdict);
      if (!stored) return;
      core::Verdict judged = *stored;
      judged.summary.beats_incumbent = false;
      judged.summary.decision = core::Decision{false, "not promotable: not compared: " + reason, {}, {}, {}};
      judged.reason += "; not compared: " + reason;
      m_ledger.decide(id, judged);
      return;
    }
    m_ledger.finish_error(rec, reason);
  } catch (const std::exception& e) {
    spdlog::error("pipeline: the error verdict for {} failed too: {}", id, e.what());
  }
}

void Pipeline::compile_worker() {
  while (auto id = m_queue.pop()) {
    bool comparison_only = false;
    {
      std::lock_guard lock(m_mutex);
      ++m_compiling;
      comparison_only = m_compare_only.erase(*id) > 0;
    }
    guarded(*id, comparison_only ? "the comparison's analysis or compilation" : "analysis or compilation",
            [&] { run_front(*id, comparison_only); });
    std::lock_guard lock(m_mutex);
    --m_compiling;
  }
}

void Pipeline::store_artifacts(const std::string& id, const eval::Evaluation& e) {
  // Content-addressed: the verdict's compiler_facts[] name them by sha256 (GET .../artifacts/...).
  for (const auto& a : e.artifacts())
    if (auto r = m_objects.put(a.data); !r)
      spdlog::warn("candidate {}: its {} of config {} not stored: {}", id, a.kind, a.config, r.error().what());
}

bool Pipeline::stop_if_cancelled(const std::string& id) {
  if (!m_ledger.cancel_requested(id)) return false;
  m_ledger.mark_cancelled(id);
  return true;
}

void Pipeline::run_front(const std::string& id, bool comparison_only) {
  auto found = store::CandidateRepository(m_db).find(id);
  if (!found || !*found) return;
  auto rec = **found;
  int attempt_no = 0;
  if (comparison_only) {
    if (rec.comparison_state != core::ComparisonState::pending) return;
    auto n = m_ledger.begin_comparison(id);
    if (!n || *n == 0) return;
    attempt_no = rec.attempts;
  } else {
    if (core::is_terminal(rec.state)) return;
    if (stop_if_cancelled(id)) return;
    auto attempt = m_ledger.begin_attempt(id);
    if (!attempt || *attempt == 0) return;
    attempt_no = *attempt;
  }
  auto source = m_objects.get(rec.source_sha256);
  if (!source) return m_ledger.finish_error(rec, "source object missing: " + source.error().what());
  auto shaper = std::make_shared<eval::StageEventShaper>();  // the progress function is copied
  auto progress = [this, id, attempt_no, shaper, comparison_only](const eval::StageEvent& e) {
    // A comparison run again after a restart: its stages are not the candidate's (its verdict is
    // stored); only the comparison's notes are its events.
    if (comparison_only && !e.note) return;
    auto shaped = (*shaper)(e);
    if (!shaped) return;
    m_ledger.event(id, shaped->first, shaped->second);
    if (!e.workload && !e.note && e.finished) m_ledger.stage_finished(id, attempt_no, eval::stage_name(e.stage), e.detail);
  };
  auto made = m_factory(rec, *source, progress);
  if (!made) return m_ledger.finish_error(rec, made.error().what());
  auto job = std::make_unique<Job>(Job{rec, attempt_no, std::move(*made), comparison_only});
  auto& e = *job->evaluation;
  if (!comparison_only) {
    if (!e.analyze()) return m_ledger.finish(id, e.verdict());
    if (stop_if_cancelled(id)) return;
    m_ledger.advance(id, core::CandidateState::compiling);
    if (!e.compile()) return m_ledger.finish(id, e.verdict());
    store_artifacts(id, e);
    if (stop_if_cancelled(id)) return;
    if (m_cfg.executor) return m_cfg.executor->run(rec, *source, attempt_no);  // its device stages run elsewhere
  } else if (!e.analyze() || !e.compile()) {
    throw std::runtime_error("the candidate no longer compiles: " + e.verdict().reason);
  }

  // Hand over to the device lane, waiting while the backlog is full.
  std::unique_lock lock(m_mutex);
  m_backlog_cv.wait(lock, [&] { return m_stopping || m_backlog < size_t(std::max(1, m_cfg.compiled_backlog)); });
  if (m_stopping) return;
  ++m_backlog;
  LaneQueue& queue = queue_for(e.device_key());
  queue.jobs.push_back(std::move(job));
  queue.cv.notify_one();
}

Pipeline::LaneQueue& Pipeline::queue_for(const std::string& key) {
  auto& slot = m_queues[key];
  if (!slot) {
    slot = std::make_unique<LaneQueue>();
    // A key no configured lane serves (the CPU, cuda:none, a GPU outside the lanes): its own lane.
    bool served = false;
    for (const auto& l : m_cfg.lanes) served = served || (l.queue == key && l.device);
    if (!served) start_lane(key, *slot, nullptr);
  }
  return *slot;
}

void Pipeline::start_lane(const std::string& key, LaneQueue& queue, std::shared_ptr<const eval::DeviceLane> device,
                          int depth) {
  for (const auto& lane : m_lanes)
    if (lane->key == key) return;  // one lane per device, never two on one GPU
  auto lane = std::make_unique<Lane>();
  lane->key = key;
  for (const auto& [k, q] : m_queues)
    if (q.get() == &queue) lane->queue_key = k;
  lane->queue = &queue;
  lane->device = std::move(device);
  const size_t slots = size_t(std::max(1, depth));
  lane->candidates.resize(slots);
  Lane* raw = lane.get();
  for (size_t slot = 0; slot < slots; ++slot)
    lane->threads.emplace_back([this, raw, slot] { lane_worker(*raw, slot); });
  m_lanes.push_back(std::move(lane));
}

}  // namespace kwb::exec
