#include "exec/pipeline.hpp"

#include <spdlog/spdlog.h>

#include "eval/profile_request.hpp"
#include "core/verdict_parse.hpp"
#include "store/candidate_repository.hpp"
#include "util/ignore.hpp"
#include "util/log.hpp"

namespace kwb::exec {

// Compiled candidates waiting for a device of one key or class; every lane of it takes from here.
struct Pipeline::LaneQueue {
  std::deque<std::unique_ptr<Job>> jobs;
  std::condition_variable cv;
};

struct Pipeline::Lane {
  std::string key, queue_key;
  LaneQueue* queue = nullptr;
  std::shared_ptr<const eval::DeviceLane> device;  // null: the evaluation's own device
  std::vector<std::string> candidates;  // per slot: on the device now, "" when idle
  uint64_t finished = 0;
  // Admission (under the pipeline's mutex): slots running evaluations that share the device, or
  // one that holds it alone; those waiting to be alone go before new sharers.
  int sharing = 0, waiting_alone = 0;
  bool alone = false;
  std::condition_variable admission;
  std::vector<std::thread> threads;  // one per slot
};

Pipeline::Pipeline(store::Database& db, store::ObjectStore& objects, EvaluationFactory factory, EventHub& hub,
                   PipelineConfig cfg)
    : m_db(db), m_objects(objects), m_factory(std::move(factory)), m_hub(hub), m_cfg(cfg) {}

Pipeline::~Pipeline() { stop(); }

util::Result<void> Pipeline::start() {
  store::CandidateRepository repo(m_db);
  auto pending = repo.unfinished();
  if (!pending) return std::unexpected(pending.error());
  size_t requeued = 0;
  const int max_attempts = std::max(1, m_cfg.max_attempts);
  std::set<std::string> attached;  // still running on the executor (a restart): not run again
  if (m_cfg.executor) {
    auto a = m_cfg.executor->start(*this);
    if (!a) return std::unexpected(a.error());
    attached = std::move(*a);
    if (!attached.empty())
      spdlog::info("pipeline: re-attached to {} candidate(s) still running on the {} executor", attached.size(),
                   m_cfg.executor->name());
  }
  for (const auto& rec : *pending) {
    if (attached.contains(rec.id)) continue;
    if (rec.attempts >= max_attempts) {
      // Each of its evaluations ended with the daemon (a crash, kill -9, power loss): a third run
      // could take the daemon down again.
      spdlog::warn("pipeline: {} was interrupted {} times: error verdict instead of another run", rec.id, rec.attempts);
      finish_error(rec, "evaluation interrupted " + std::to_string(rec.attempts) +
                            " times: the daemon stopped (crash, kill or restart) while evaluating this candidate each "
                            "time, so it is not run again; resubmit it if the cause was unrelated to the candidate");
      continue;
    }
    ++requeued;
    if (rec.state != "queued") {
      event(rec.id, "state", {{"state", "queued"},
                              {"detail", "requeued at start-up: the previous run stopped while " + rec.state}});
      util::ignore(repo.set_state(rec.id, "queued"), "TODO lead: the requeued candidate's stored state stays " + rec.state);
    }
    m_queue.push(rec.token_id.value_or(0), rec.id);
  }
  if (requeued > 0) spdlog::info("pipeline: {} unfinished candidate(s) queued again", requeued);
  {
    std::lock_guard lock(m_mutex);
    for (const auto& l : m_cfg.lanes)
      if (l.device) start_lane(l.device->device.key, queue_for(l.queue), l.device, l.depth);
  }
  for (int i = 0; i < std::max(1, m_cfg.compile_workers); ++i) m_workers.emplace_back([this] { compile_worker(); });
  m_retry_thread = std::thread([this] { retry_worker(); });
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
  m_retry_cv.notify_all();
  m_queue.stop();
  for (auto& t : m_workers)
    if (t.joinable()) t.join();
  if (m_retry_thread.joinable()) m_retry_thread.join();
  std::lock_guard lock(m_mutex);
  for (auto& lane : m_lanes)
    for (auto& thread : lane->threads)
      if (thread.joinable()) {
        m_mutex.unlock();
        thread.join();
        m_mutex.lock();
      }
  if (!m_unwritten.empty())
    spdlog::error("pipeline: stopping with {} verdict(s) not stored ({}): those candidates are evaluated again at the "
                  "next start", m_unwritten.size(), m_last_write_error);
}

void Pipeline::submitted(const store::CandidateRecord& rec) {
  event(rec.id, "state", {{"state", "queued"}});
  m_queue.push(rec.token_id.value_or(0), rec.id);
}

util::Result<std::string> Pipeline::cancel(const std::string& id) {
  store::CandidateRepository repo(m_db);
  auto state = repo.cancel(id);
  if (!state) return state;
  if (*state == "cancelled" && m_queue.remove(id)) {
    event(id, "state", {{"state", "cancelled"}, {"detail", "cancelled while queued"}});
  } else if (*state != "done" && *state != "cancelled") {
    std::lock_guard lock(m_mutex);
    m_cancel_requests.insert(id);
    if (auto it = m_on_device_now.find(id); it != m_on_device_now.end()) it->second->cancel();
  }
  if (*state != "done" && *state != "cancelled" && m_cfg.executor) m_cfg.executor->cancel(id);
  return state;
}

PipelineStats Pipeline::stats() const {
  const int remote = m_cfg.executor ? int(m_cfg.executor->in_flight()) : 0;
  std::lock_guard lock(m_mutex);
  PipelineStats st{m_queue.size(), m_backlog, m_compiling, m_on_device + remote, m_finished, m_unwritten.size(),
                   m_unwritten.empty() ? std::string() : m_last_write_error, {}};
  for (const auto& l : m_lanes) {
    LaneStats ls{l->key, l->queue_key, "", {}, l->finished};
    for (const auto& c : l->candidates)
      if (!c.empty()) ls.candidates.push_back(c);
    if (!ls.candidates.empty()) ls.candidate = ls.candidates.front();
    st.lanes.push_back(std::move(ls));
  }
  return st;
}

void Pipeline::event(const std::string& id, const std::string& kind, const nlohmann::json& data) {
  store::EventRepository events(m_db);
  if (auto r = events.append(id, kind, data); !r) spdlog::error("event for {}: {}", id, r.error().what());
  m_hub.publish(id);
}

void Pipeline::set_state(const std::string& id, const std::string& state) {
  store::CandidateRepository repo(m_db);
  if (auto r = repo.set_state(id, state); r && *r) event(id, "state", {{"state", state}});
}

void Pipeline::mark_cancelled(const std::string& id) {
  store::CandidateRepository repo(m_db);
  if (auto r = repo.mark_cancelled(id); r && *r) event(id, "state", {{"state", "cancelled"}});
  std::lock_guard lock(m_mutex);
  m_cancel_requests.erase(id);
}

bool Pipeline::cancelled(const std::string& id) {
  {
    std::lock_guard lock(m_mutex);
    if (m_cancel_requests.contains(id)) return true;
  }
  store::CandidateRepository repo(m_db);
  auto rec = repo.find(id);
  return rec && *rec && (*rec)->cancel_requested;
}

void Pipeline::finish(const std::string& id, const core::Verdict& v) {
  core::Verdict verdict = v;
  verdict.candidate = id;
  // One line per verdict (docs/api.md "Logs").
  nlohmann::ordered_json fields = {{"candidate", id}, {"op", v.op}, {"variant", v.variant}, {"backend", v.backend},
                                   {"status", std::string(core::status_name(v.status))}};
  if (v.summary.beats_incumbent) fields["beats_incumbent"] = *v.summary.beats_incumbent;
  fields["wall_ms"] = v.summary.wall_ms;
  fields["reason"] = v.reason.size() > 300 ? v.reason.substr(0, 300) + "..." : v.reason;
  util::log_event(spdlog::level::info, "verdict", fields);
  store_verdict(id, core::to_json(verdict));
}

void Pipeline::finish_json(const std::string& id, nlohmann::json json) {
  json["candidate"] = id;
  auto text = [&](const char* k) { return json.contains(k) && json[k].is_string() ? json[k].get<std::string>() : ""; };
  if (m_cfg.promote && text("status") == "accepted") promote_remote(id, json);
  nlohmann::ordered_json fields = {{"candidate", id}, {"op", text("op")}, {"variant", text("variant")},
                                   {"backend", text("backend")}, {"status", text("status")}};
  const std::string reason = text("reason");
  fields["reason"] = reason.size() > 300 ? reason.substr(0, 300) + "..." : reason;
  util::log_event(spdlog::level::info, "verdict", fields);
  store_verdict(id, std::move(json));
}

void Pipeline::promote_remote(const std::string& id, nlohmann::json& json) {
  auto rec = store::CandidateRepository(m_db).find(id);
  auto verdict = core::verdict_from_json(json);
  if (!rec || !*rec || !verdict) {
    spdlog::warn("candidate {}: its verdict from {} was not considered for promotion: {}", id,
                 m_cfg.executor ? m_cfg.executor->name() : "an executor",
                 !verdict ? verdict.error().what() : "no such candidate");
    return;
  }
  auto source = m_objects.get((*rec)->source_sha256);
  if (!source) return;
  m_cfg.promote(**rec, *source, *verdict);
  json["reason"] = verdict->reason;  // the policy's word on it
}

void Pipeline::store_verdict(const std::string& id, nlohmann::json json) {
  // A profile asked for in the submission: the verdict says what came of it (eval/profile_request.hpp).
  if (!json.contains("profile") || json["profile"].is_null()) {
    auto rec = store::CandidateRepository(m_db).find(id);
    if (rec && *rec && (*rec)->profile) {
      auto text = [&](const char* k) { return json.contains(k) && json[k].is_string() ? json[k].get<std::string>() : ""; };
      json["profile"] = core::to_json(eval::profile_outcome(text("backend"), text("status")));
    }
  }
  if (write_verdict(id, json)) return;
  {
    std::lock_guard lock(m_mutex);
    spdlog::error("verdict for {} not stored, kept and retried every {} ms: {}", id, m_cfg.retry_interval.count(),
                  m_last_write_error);
    m_unwritten[id] = std::move(json);
  }
  m_retry_cv.notify_all();
}

bool Pipeline::write_verdict(const std::string& id, const nlohmann::json& json) {
  store::CandidateRepository repo(m_db);
  auto written = repo.finish(id, json);
  if (!written) {
    std::lock_guard lock(m_mutex);
    m_last_write_error = written.error().what();
    return false;
  }
  if (!*written) return true;  // already done or cancelled: the first verdict stands
  {
    std::lock_guard lock(m_mutex);
    ++m_finished;
    m_cancel_requests.erase(id);
  }
  event(id, "verdict", {{"status", json["status"]}, {"reason", json["reason"]}});
  event(id, "state", {{"state", "done"}});
  return true;
}

void Pipeline::retry_worker() {
  std::unique_lock lock(m_mutex);
  while (true) {
    m_retry_cv.wait(lock, [&] { return m_stopping || !m_unwritten.empty(); });
    if (m_stopping) return;
    if (m_retry_cv.wait_for(lock, m_cfg.retry_interval, [&] { return m_stopping; })) return;
    auto pending = m_unwritten;
    lock.unlock();
    std::vector<std::string> stored;
    for (const auto& [id, json] : pending)
      if (write_verdict(id, json)) stored.push_back(id);
    lock.lock();
    for (const auto& id : stored) {
      m_unwritten.erase(id);
      spdlog::info("verdict for {} stored on a retry", id);
    }
  }
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
    finish_error(rec, std::string("internal error during ") + where + ": " + what +
                          " (the evaluation was stopped; a failure of the workbench, not a judgement of the candidate: "
                          "report it with this candidate's id)");
  } catch (const std::exception& e) {
    spdlog::error("pipeline: the error verdict for {} failed too: {}", id, e.what());
  }
}

void Pipeline::finish_error(const store::CandidateRecord& rec, const std::string& reason) {
  core::Verdict v;
  v.op = rec.op;
  v.variant = rec.variant;
  v.backend = rec.backend;
  v.status = core::Status::error;
  v.reason = reason;
  finish(rec.id, v);
}

void Pipeline::compile_worker() {
  while (auto id = m_queue.pop()) {
    {
      std::lock_guard lock(m_mutex);
      ++m_compiling;
    }
    guarded(*id, "analysis or compilation", [&] { run_front(*id); });
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

void Pipeline::run_front(const std::string& id) {
  store::CandidateRepository repo(m_db);
  auto found = repo.find(id);
  if (!found || !*found) return;
  auto rec = **found;
  if (rec.state == "done" || rec.state == "cancelled") return;
  auto mark_cancelled = [&] {
    if (auto r = repo.mark_cancelled(id); r && *r) event(id, "state", {{"state", "cancelled"}});
  };
  if (rec.cancel_requested) return mark_cancelled();
  auto attempt = repo.begin_attempt(id);
  if (!attempt || *attempt == 0) return;
  event(id, "state", {{"state", "analyzing"}, {"attempt", *attempt}});

  auto source = m_objects.get(rec.source_sha256);
  if (!source) return finish_error(rec, "source object missing: " + source.error().what());
  int attempt_no = *attempt;
  auto shaper = std::make_shared<eval::StageEventShaper>();  // the progress function is copied
  auto progress = [this, id, attempt_no, shaper](const eval::StageEvent& e) {
    auto shaped = (*shaper)(e);
    if (!shaped) return;
    event(id, shaped->first, shaped->second);
    if (!e.workload && !e.note && e.finished) {
      store::CandidateRepository r(m_db);
      util::ignore(r.record_stage(id, attempt_no, std::string(eval::stage_name(e.stage)), 0, e.detail),
                   "TODO lead: candidate " + id + "'s stage row is not stored");
    }
  };
  auto made = m_factory(rec, *source, progress);
  if (!made) return finish_error(rec, made.error().what());
  auto job = std::make_unique<Job>(Job{rec, attempt_no, std::move(*made)});
  auto& e = *job->evaluation;
  if (!e.analyze()) return finish(id, e.verdict());
  if (cancelled(id)) return mark_cancelled();
  set_state(id, "compiling");
  if (!e.compile()) return finish(id, e.verdict());
  store_artifacts(id, e);
  if (cancelled(id)) return mark_cancelled();
  if (m_cfg.executor) return m_cfg.executor->run(rec, *source, attempt_no);  // its device stages run elsewhere

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

bool Pipeline::enter_lane(Lane& lane, bool share) {
  std::unique_lock lock(m_mutex);
  if (share) {
    lane.admission.wait(lock, [&] { return m_stopping || (!lane.alone && lane.waiting_alone == 0); });
    if (m_stopping) return false;
    ++lane.sharing;
    return true;
  }
  ++lane.waiting_alone;
  lane.admission.wait(lock, [&] { return m_stopping || (!lane.alone && lane.sharing == 0); });
  --lane.waiting_alone;
  if (m_stopping) return false;
  lane.alone = true;
  return true;
}

void Pipeline::leave_lane(Lane& lane, bool share) {
  {
    std::lock_guard lock(m_mutex);
    if (share) --lane.sharing;
    else lane.alone = false;
  }
  lane.admission.notify_all();
}

void Pipeline::lane_worker(Lane& lane, size_t slot) {
  while (true) {
    std::unique_ptr<Job> job;
    {
      std::unique_lock lock(m_mutex);
      lane.queue->cv.wait(lock, [&] { return m_stopping || !lane.queue->jobs.empty(); });
      if (m_stopping) return;
      job = std::move(lane.queue->jobs.front());
      lane.queue->jobs.pop_front();
      --m_backlog;
      ++m_on_device;
      m_on_device_now[job->rec.id] = job->evaluation.get();
      lane.candidates[slot] = job->rec.id;
    }
    m_backlog_cv.notify_one();
    const bool share = job->evaluation->shares_device();
    if (enter_lane(lane, share)) {
      guarded(job->rec.id, "validation, benchmark or decision", [&] { run_device(*job, lane); });
      leave_lane(lane, share);
    }
    {
      std::lock_guard lock(m_mutex);
      m_on_device_now.erase(job->rec.id);
    }
    job.reset();  // removes the job folder, stops the runner
    std::lock_guard lock(m_mutex);
    --m_on_device;
    lane.candidates[slot].clear();
    ++lane.finished;
  }
}

void Pipeline::run_device(Job& job, const Lane& lane) {
  const std::string& id = job.rec.id;
  auto& e = *job.evaluation;
  auto stop_if_cancelled = [&] {
    if (!cancelled(id)) return false;
    store::CandidateRepository repo(m_db);
    if (auto r = repo.mark_cancelled(id); r && *r) event(id, "state", {{"state", "cancelled"}});
    return true;
  };
  if (stop_if_cancelled()) return;
  if (lane.device) e.bind_lane(*lane.device);
  {  // the state event names the lane: which GPU timed the candidate (docs/api.md "Events")
    store::CandidateRepository repo(m_db);
    if (auto r = repo.set_state(id, "validating"); r && *r) event(id, "state", {{"state", "validating"}, {"lane", lane.key}});
  }
  if (!e.validate()) return (void)(stop_if_cancelled() || (finish(id, e.verdict()), true));
  if (stop_if_cancelled()) return;
  set_state(id, "benchmarking");
  if (!e.benchmark()) return (void)(stop_if_cancelled() || (finish(id, e.verdict()), true));
  set_state(id, "deciding");
  // The comparison with baselines and the incumbent is part of the decide stage: its end event
  // comes after it (eval::decide_stage).
  core::Verdict v = eval::decide_stage(e, [&](core::Verdict& decided) {
    if (!m_cfg.judge && !m_cfg.promote) return;
    auto source = m_objects.get(job.rec.source_sha256);
    if (!source) return;
    if (m_cfg.judge) m_cfg.judge(job.rec, *source, decided, e);
    if (m_cfg.promote) m_cfg.promote(job.rec, *source, decided);
  });
  finish(id, v);
}

}  // namespace kwb::exec
