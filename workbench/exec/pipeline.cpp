#include "exec/pipeline.hpp"

#include <spdlog/spdlog.h>

namespace kwb::exec {

struct Pipeline::Lane {
  std::string key;
  std::deque<std::unique_ptr<Job>> jobs;
  std::condition_variable cv;
  std::thread thread;
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
  for (const auto& rec : *pending) {
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
      repo.set_state(rec.id, "queued");
    }
    m_queue.push(rec.token_id.value_or(0), rec.id);
  }
  if (requeued > 0) spdlog::info("pipeline: {} unfinished candidate(s) queued again", requeued);
  for (int i = 0; i < std::max(1, m_cfg.compile_workers); ++i) m_workers.emplace_back([this] { compile_worker(); });
  m_retry_thread = std::thread([this] { retry_worker(); });
  return {};
}

void Pipeline::stop() {
  {
    std::lock_guard lock(m_mutex);
    if (m_stopping) return;
    m_stopping = true;
    for (auto& [key, lane] : m_lanes) lane->cv.notify_all();
  }
  m_backlog_cv.notify_all();
  m_retry_cv.notify_all();
  m_queue.stop();
  for (auto& t : m_workers)
    if (t.joinable()) t.join();
  if (m_retry_thread.joinable()) m_retry_thread.join();
  std::lock_guard lock(m_mutex);
  for (auto& [key, lane] : m_lanes)
    if (lane->thread.joinable()) {
      m_mutex.unlock();
      lane->thread.join();
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
  return state;
}

PipelineStats Pipeline::stats() const {
  std::lock_guard lock(m_mutex);
  return {m_queue.size(), m_backlog, m_compiling, m_on_device, m_finished, m_unwritten.size(),
          m_unwritten.empty() ? std::string() : m_last_write_error};
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
  auto json = core::to_json(verdict);
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
  // Sample counts come after every timing round: at most one such event per 250 ms (a workload's
  // start is always sent).
  auto last_samples_event = std::make_shared<std::chrono::steady_clock::time_point>();
  auto progress = [this, id, attempt_no, last_samples_event](const eval::StageEvent& e) {
    if (e.workload) {
      const auto& w = *e.workload;
      auto now = std::chrono::steady_clock::now();
      if (w.samples > 0 && now - *last_samples_event < std::chrono::milliseconds(250)) return;
      if (w.samples > 0) *last_samples_event = now;
      nlohmann::json data = {{"stage", eval::stage_name(e.stage)}, {"workload", w.workload}, {"kind", w.kind},
                             {"params", w.params}, {"samples", w.samples}};
      if (!w.config.empty()) data["config"] = w.config;
      if (w.count > 0) data.update({{"index", w.index}, {"count", w.count}});
      event(id, "progress", data);
      return;
    }
    nlohmann::json data = {{"stage", eval::stage_name(e.stage)}, {"finished", e.finished}};
    if (!e.detail.empty()) data["detail"] = e.detail;
    event(id, "stage", data);
    if (e.finished) {
      store::CandidateRepository r(m_db);
      r.record_stage(id, attempt_no, std::string(eval::stage_name(e.stage)), 0, e.detail);
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
  if (cancelled(id)) return mark_cancelled();

  // Hand over to the device lane, waiting while the backlog is full.
  std::unique_lock lock(m_mutex);
  m_backlog_cv.wait(lock, [&] { return m_stopping || m_backlog < size_t(std::max(1, m_cfg.compiled_backlog)); });
  if (m_stopping) return;
  ++m_backlog;
  Lane& lane = lane_for(e.device_key());
  lane.jobs.push_back(std::move(job));
  lane.cv.notify_one();
}

Pipeline::Lane& Pipeline::lane_for(const std::string& key) {
  auto& slot = m_lanes[key];
  if (!slot) {
    slot = std::make_unique<Lane>();
    slot->key = key;
    Lane* lane = slot.get();
    slot->thread = std::thread([this, lane] { lane_worker(*lane); });
  }
  return *slot;
}

void Pipeline::lane_worker(Lane& lane) {
  while (true) {
    std::unique_ptr<Job> job;
    {
      std::unique_lock lock(m_mutex);
      lane.cv.wait(lock, [&] { return m_stopping || !lane.jobs.empty(); });
      if (m_stopping) return;
      job = std::move(lane.jobs.front());
      lane.jobs.pop_front();
      --m_backlog;
      ++m_on_device;
      m_on_device_now[job->rec.id] = job->evaluation.get();
    }
    m_backlog_cv.notify_one();
    guarded(job->rec.id, "validation, benchmark or decision", [&] { run_device(*job); });
    {
      std::lock_guard lock(m_mutex);
      m_on_device_now.erase(job->rec.id);
    }
    job.reset();  // removes the job folder, stops the runner
    std::lock_guard lock(m_mutex);
    --m_on_device;
  }
}

void Pipeline::run_device(Job& job) {
  const std::string& id = job.rec.id;
  auto& e = *job.evaluation;
  auto stop_if_cancelled = [&] {
    if (!cancelled(id)) return false;
    store::CandidateRepository repo(m_db);
    if (auto r = repo.mark_cancelled(id); r && *r) event(id, "state", {{"state", "cancelled"}});
    return true;
  };
  if (stop_if_cancelled()) return;
  set_state(id, "validating");
  if (!e.validate()) return (void)(stop_if_cancelled() || (finish(id, e.verdict()), true));
  if (stop_if_cancelled()) return;
  set_state(id, "benchmarking");
  if (!e.benchmark()) return (void)(stop_if_cancelled() || (finish(id, e.verdict()), true));
  set_state(id, "deciding");
  e.decide();
  core::Verdict v = e.verdict();
  if (m_cfg.judge) {
    if (auto source = m_objects.get(job.rec.source_sha256)) m_cfg.judge(job.rec, *source, v, e);
  }
  finish(id, v);
}

}  // namespace kwb::exec
