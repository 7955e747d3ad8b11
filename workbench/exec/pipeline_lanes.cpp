// The device lanes of the pipeline (pipeline.hpp): admission, the device stages, the verdict
// and the comparison that follows it.
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "core/verdict_parse.hpp"
#include "exec/pipeline.hpp"
#include "exec/pipeline_lane.hpp"
#include "exec/sample_artifacts.hpp"

namespace kwb::exec {

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
  if (lane.device) e.bind_lane(*lane.device);
  if (job.comparison_only) return compare_again(job);
  if (stop_if_cancelled(id)) return;
  // The state event names the lane: which GPU timed the candidate (docs/api.md "Events").
  m_ledger.advance(id, core::CandidateState::validating, {{"lane", lane.key}});
  if (!e.validate()) {
    if (!stop_if_cancelled(id)) m_ledger.finish(id, e.verdict());
    return;
  }
  if (stop_if_cancelled(id)) return;
  m_ledger.advance(id, core::CandidateState::benchmarking);
  if (m_cfg.judge)  // one pass: the bench timing is the comparison's first block pairs where it can be
    if (auto source = m_objects.get(job.rec.source_sha256))
      if (auto timer = m_cfg.judge->bench_timer(job.rec, *source, e)) e.set_bench_timer(std::move(timer));
  if (!e.benchmark()) {
    if (!stop_if_cancelled(id)) m_ledger.finish(id, e.verdict());
    return;
  }
  m_ledger.advance(id, core::CandidateState::deciding);
  // The baselines and what the verdict knows of the incumbent are part of the decide stage: its
  // end event comes after them (eval::decide_stage); the timed comparison follows the verdict.
  bool compare = false;
  auto source = m_objects.get(job.rec.source_sha256);
  core::Verdict v = eval::decide_stage(e, [&](core::Verdict& decided) {
    if (m_cfg.judge && source) compare = m_cfg.judge->verdict(job.rec, *source, decided, e);
  });
  finish_device(job, std::move(v), compare && source.has_value());
}

void Pipeline::finish_device(Job& job, core::Verdict v, bool compare) {
  const std::string& id = job.rec.id;
  v.candidate = id;
  keep_samples(m_objects, v);
  keep_profile_report(m_objects, v);
  auto source = m_objects.get(job.rec.source_sha256);
  if (!compare || !m_cfg.judge || !source) {
    if (m_cfg.judge && source && v.summary.decision) m_cfg.judge->decided(job.rec, *source, v);
    keep_blocks(m_objects, v);
    return m_ledger.finish(id, v);
  }
  m_ledger.finish(id, v, core::ComparisonState::pending);
  if (auto n = m_ledger.begin_comparison(id); !n || *n == 0) return;
  core::Verdict judged = v;
  m_cfg.judge->compare(job.rec, *source, judged, *job.evaluation);
  m_cfg.judge->decided(job.rec, *source, judged);
  keep_blocks(m_objects, judged);
  m_ledger.decide(id, judged);
}

void Pipeline::compare_again(Job& job) {
  auto& e = *job.evaluation;
  auto stored = core::verdict_from_json(job.rec.verdict);
  auto source = m_objects.get(job.rec.source_sha256);
  if (!stored || !source) throw std::runtime_error("its stored verdict or source could not be read");
  // The comparison needs the candidate's runner open after an accepted benchmark stage: the
  // evaluation runs again (its verdict is not stored: the first one stands).
  if (!e.validate() || !e.benchmark())
    throw std::runtime_error("the candidate failed when evaluated again for its comparison: " + e.verdict().reason);
  core::Verdict again = eval::decide_stage(e);
  if (again.status != core::Status::accepted)
    throw std::runtime_error("the candidate was not accepted when evaluated again for its comparison: " + again.reason);
  core::Verdict judged = *stored;
  judged.candidate = job.rec.id;
  m_cfg.judge->compare(job.rec, *source, judged, e);
  m_cfg.judge->decided(job.rec, *source, judged);
  keep_blocks(m_objects, judged);
  m_ledger.decide(job.rec.id, judged);
}

}  // namespace kwb::exec
