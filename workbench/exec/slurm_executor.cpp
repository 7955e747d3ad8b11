#include "exec/slurm_executor.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <spdlog/spdlog.h>

#include "exec/command_runner.hpp"
#include "exec/slurm_util.hpp"
#include "exec/ledger.hpp"
#include "store/fleet_device_repository.hpp"
#include "store/fleet_job_repository.hpp"
#include "util/fs.hpp"

namespace kwb::exec {


SlurmExecutor::SlurmExecutor(store::Database& db, SlurmConfig cfg) : m_db(db), m_cfg(std::move(cfg)) {}

SlurmExecutor::~SlurmExecutor() { stop(); }

std::string SlurmExecutor::tool(const char* name) const {
  return m_cfg.bin_dir.empty() ? std::string(name) : (std::filesystem::path(m_cfg.bin_dir) / name).string();
}

util::Result<std::set<std::string>> SlurmExecutor::start(Ledger& ledger, RemoteVerdictFn on_verdict) {
  m_ledger = &ledger;
  m_on_remote_verdict = std::move(on_verdict);
  std::error_code ec;
  std::filesystem::create_directories(m_cfg.shared_dir, ec);
  if (ec) return util::fail("fleet", "cannot create the shared job folder " + m_cfg.shared_dir.string() + ": " + ec.message());
  store::FleetJobRepository fleet(m_db);
  store::CandidateRepository candidates(m_db);
  auto rows = fleet.all(name());
  if (!rows) return std::unexpected(rows.error());
  std::set<std::string> attached;
  for (const auto& row : *rows) {
    auto rec = candidates.find(row.candidate_id);
    const bool live = rec && *rec && !core::is_terminal((*rec)->state);
    if (!live) {  // finished while the daemon was away, or its verdict was stored just before the crash
      if (!row.job_id.empty()) run_command({tool("scancel"), row.job_id});
      forget(row.candidate_id);
      continue;
    }
    Job job;
    job.rec = **rec;
    job.job_id = row.job_id;
    job.attempt = row.attempt;
    job.tries = row.tries;
    if (job.rec.cancel_requested && !job.job_id.empty()) run_command({tool("scancel"), job.job_id});
    attached.insert(row.candidate_id);
    std::lock_guard lock(m_mutex);
    m_jobs[row.candidate_id] = std::move(job);
  }
  m_thread = std::thread([this] { monitor(); });
  return attached;
}

void SlurmExecutor::stop() {
  {
    std::lock_guard lock(m_mutex);
    if (m_stopping) return;
    m_stopping = true;
  }
  m_cv.notify_all();
  if (m_thread.joinable()) m_thread.join();
}

size_t SlurmExecutor::in_flight() const {
  std::lock_guard lock(m_mutex);
  return m_jobs.size();
}

void SlurmExecutor::run(const store::CandidateRecord& rec, const std::string& source, int attempt) {
  if (m_ledger->cancel_requested(rec.id)) return m_ledger->mark_cancelled(rec.id);
  const auto dir = dir_of(rec.id);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir, ec);
  if (ec) return m_ledger->finish_error(rec, "fleet: cannot create the job folder " + dir.string() + ": " + ec.message());
  nlohmann::json cand = {{"id", rec.id},           {"op", rec.op},         {"variant", rec.variant},
                         {"backend", rec.backend}, {"source", source},     {"source_name", rec.source_name},
                         {"flags", rec.flags},     {"bench", rec.bench},   {"note", rec.note},
                         {"spec_version", rec.spec_version}, {"device_class", rec.device_class}, {"profile", rec.profile}};
  nlohmann::json job_json = {{"schema", "kwb.fleet-job.v1"}, {"candidate", cand}, {"attempt", attempt}};
  std::string script = "#!/bin/sh\n# kwb worker for candidate " + rec.id + " (written by kwb serve; docs/fleet.md)\n";
  for (const auto& [k, v] : m_cfg.worker_env) script += "export " + k + "=" + slurm_shell_quote(v) + "\n";
  script += "exec " + slurm_shell_quote(m_cfg.worker) + " worker --job " + slurm_shell_quote(dir.string()) + "\n";
  if (auto w = util::write_file_atomic(dir / "job.json", job_json.dump()); !w)
    return m_ledger->finish_error(rec, "fleet: " + w.error().what());
  if (auto w = util::write_file_atomic(dir / "job.sh", script); !w)
    return m_ledger->finish_error(rec, "fleet: " + w.error().what());
  std::filesystem::permissions(dir / "job.sh", std::filesystem::perms::owner_all, ec);
  Job job;
  job.rec = rec;
  job.attempt = attempt;
  if (!submit(job, source)) return;
  const std::string job_id = job.job_id;
  {
    std::lock_guard lock(m_mutex);
    m_jobs[rec.id] = std::move(job);
  }
  // A cancel that came while sbatch ran found no job to scancel yet.
  if (m_ledger->cancel_requested(rec.id)) run_command({tool("scancel"), job_id});
  m_cv.notify_all();
}

bool SlurmExecutor::submit(Job& job, const std::string&) {
  const std::string& id = job.rec.id;
  store::FleetJobRepository fleet(m_db);
  // Recorded before sbatch runs: a daemon killed in between finds the job again by its name.
  if (auto r = fleet.put({id, name(), "", job.tries, job.attempt, ""}); !r) {
    m_ledger->finish_error(job.rec, "fleet: the job could not be recorded: " + r.error().what());
    return false;
  }
  auto args = sbatch_arguments(m_cfg, id, job.rec.backend, dir_of(id), job.rec.device_class);
  args.insert(args.begin(), tool("sbatch"));
  args.push_back((dir_of(id) / "job.sh").string());
  job.submitted_ms = slurm_epoch_ms();
  auto out = run_command(args);
  std::string job_id = out.out.substr(0, out.out.find_first_of(";\n"));
  if (!out.ok() || job_id.empty()) {
    if (auto r = fleet.remove(id); !r)  // a restarted daemon finds the candidate finished and removes it
      spdlog::warn("fleet: candidate {}: its fleet row was not removed after sbatch refused the job: {}", id,
                   r.error().what());
    m_ledger->finish_error(job.rec, "fleet: sbatch refused the job (" + out.describe() +
                                      "): a fault of the cluster configuration, not of the candidate");
    return false;
  }
  job.job_id = job_id;
  job.progress_offset = 0;
  job.running_seen = false;
  // Without the job id in its row, a restarted daemon finds the job by its name (kwb-<id>).
  if (auto r = fleet.put({id, name(), job_id, job.tries, job.attempt, ""}); !r)
    spdlog::warn("fleet: candidate {}: Slurm job {} was not recorded (a restarted daemon looks it up by its name "
                 "kwb-{}): {}", id, job_id, id, r.error().what());
  m_ledger->event(id, "stage", {{"stage", "validate"}, {"finished", false},
                              {"detail", "submitted as Slurm job " + job_id +
                                             (job.tries > 1 ? " (try " + std::to_string(job.tries) + ")" : "")}});
  spdlog::info("fleet: candidate {} attempt {} submitted as Slurm job {}", id, job.attempt, job_id);
  return true;
}

void SlurmExecutor::cancel(const std::string& id) {
  std::string job_id;
  {
    std::lock_guard lock(m_mutex);
    auto it = m_jobs.find(id);
    if (it == m_jobs.end()) return;
    job_id = it->second.job_id;
  }
  if (job_id.empty()) return;
  auto out = run_command({tool("scancel"), job_id});
  if (!out.ok()) spdlog::warn("fleet: scancel {} (candidate {}): {}", job_id, id, out.describe());
  m_cv.notify_all();
}

void SlurmExecutor::monitor() {
  std::unique_lock lock(m_mutex);
  while (!m_stopping) {
    m_cv.wait_for(lock, m_cfg.poll, [&] { return m_stopping; });
    if (m_stopping) return;
    lock.unlock();
    try {
      poll_once();
    } catch (const std::exception& e) {
      spdlog::error("fleet: watching the Slurm jobs failed: {}", e.what());
    }
    lock.lock();
  }
}

bool SlurmExecutor::query(std::map<std::string, SlurmState>& by_id, std::map<std::string, std::string>& by_name) {
  auto out = run_command({tool("squeue"), "--noheader", "--states=all", "--me", "--format=%i|%T|%r|%j"});
  if (!out.ok()) {
    spdlog::warn("fleet: squeue failed ({}); the jobs are looked at again in {} ms", out.describe(), m_cfg.poll.count());
    return false;
  }
  std::istringstream in(out.out);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    size_t start = 0;
    for (int i = 0; i < 3; ++i) {
      size_t bar = line.find('|', start);
      if (bar == std::string::npos) break;
      f.push_back(line.substr(start, bar - start));
      start = bar + 1;
    }
    if (f.size() != 3) continue;
    std::string job = f[0];
    while (!job.empty() && job.front() == ' ') job.erase(job.begin());
    by_id[job] = {f[1], f[2]};
    by_name[line.substr(start)] = job;
  }
  return true;
}

void SlurmExecutor::forget(const std::string& id) {
  store::FleetJobRepository fleet(m_db);
  if (auto r = fleet.remove(id); !r)  // a restarted daemon finds the candidate finished and removes it
    spdlog::warn("fleet: candidate {}: its fleet row was not removed: {}", id, r.error().what());
  std::error_code ec;
  std::filesystem::remove_all(dir_of(id), ec);
  std::lock_guard lock(m_mutex);
  m_jobs.erase(id);
}

void SlurmExecutor::resubmit(Job& job, const std::string& why) {
  const std::string& id = job.rec.id;
  if (job.tries >= std::max(1, m_cfg.max_tries)) {
    m_ledger->finish_error(job.rec, "fleet: " + why + "; the job was submitted " + std::to_string(job.tries) +
                                      " times and lost each time (a fault of the cluster, not a judgement of the "
                                      "candidate; resubmit it)");
    return forget(id);
  }
  spdlog::warn("fleet: candidate {}: {}; submitting it again", id, why);
  ++job.tries;
  std::error_code ec;
  std::filesystem::remove(dir_of(id) / "progress.jsonl", ec);
  if (!submit(job, "")) return forget(id);
  std::lock_guard lock(m_mutex);
  if (auto it = m_jobs.find(id); it != m_jobs.end()) it->second = job;
}

void SlurmExecutor::job_ended(Job& job, const SlurmState* st) {
  const std::string& id = job.rec.id;
  if (take_result(job)) return forget(id);
  if (m_ledger->cancel_requested(id)) {
    m_ledger->mark_cancelled(id);
    return forget(id);
  }
  const std::string state = st ? st->state : "gone";
  const std::string out = slurm_tail_of(dir_of(id) / ("slurm-" + job.job_id + ".out"), 1500);
  const std::string what = "Slurm job " + job.job_id + " ended " + state + (st && !st->reason.empty() && st->reason != "None" ? " (" + st->reason + ")" : "") +
                           " without a result" + (out.empty() ? "" : ", its output: " + out);
  if (state == "TIMEOUT" && job.tries >= std::min(2, std::max(1, m_cfg.max_tries))) {
    // Twice past the job's time limit: the candidate's evaluation takes too long.
    core::Verdict v;
    v.candidate = id;
    v.op = job.rec.op;
    v.variant = job.rec.variant;
    v.backend = job.rec.backend;
    v.status = core::Status::time_limit;
    v.reason = "the evaluation ran past the Slurm job time limit of " + std::to_string(m_cfg.time_limit_min) +
               " min on " + std::to_string(job.tries) + " tries (Slurm job " + job.job_id + ")";
    m_ledger->finish(id, v);
    return forget(id);
  }
  resubmit(job, what);
}

void SlurmExecutor::poll_once() {
  std::vector<Job> jobs;
  {
    std::lock_guard lock(m_mutex);
    for (const auto& [id, j] : m_jobs) jobs.push_back(j);
  }
  if (jobs.empty()) return;
  std::vector<Job*> waiting;
  for (auto& job : jobs) {
    relay_progress(job);
    if (take_result(job)) forget(job.rec.id);
    else waiting.push_back(&job);
  }
  if (!waiting.empty()) {
    std::map<std::string, SlurmState> by_id;
    std::map<std::string, std::string> by_name;
    if (!query(by_id, by_name)) return;
    for (Job* j : waiting) {
      Job& job = *j;
      if (job.job_id.empty()) {  // the daemon stopped between recording the job and sbatch's answer
        if (auto it = by_name.find("kwb-" + job.rec.id); it != by_name.end()) {
          job.job_id = it->second;
          store::FleetJobRepository fleet(m_db);
          if (auto r = fleet.put({job.rec.id, name(), job.job_id, job.tries, job.attempt, ""}); !r)
            spdlog::warn("fleet: candidate {}: Slurm job {} (found by its name) was not recorded: {}", job.rec.id,
                         job.job_id, r.error().what());
        } else {
          resubmit(job, "its submission was interrupted before Slurm answered");
          continue;
        }
      }
      auto it = by_id.find(job.job_id);
      if (it != by_id.end() && slurm_active_state(it->second.state)) {
        job.running_seen = job.running_seen || it->second.state == "RUNNING";
        continue;
      }
      job_ended(job, it == by_id.end() ? nullptr : &it->second);
    }
  }
  // Keep what was learnt (progress read, job ids found) for the jobs still watched.
  std::lock_guard lock(m_mutex);
  for (const auto& job : jobs) {
    auto it = m_jobs.find(job.rec.id);
    if (it == m_jobs.end()) continue;
    if (it->second.job_id == job.job_id || it->second.job_id.empty()) {
      it->second.progress_offset = std::max(it->second.progress_offset, job.progress_offset);
      it->second.stage_state = job.stage_state;
      if (it->second.job_id.empty()) it->second.job_id = job.job_id;
    }
  }
}

}  // namespace kwb::exec
