// What the Slurm executor reads back from a job's folder (slurm_executor.hpp): the worker's
// progress, relayed as the candidate's events, and its result, stored as the verdict.
#include <fstream>

#include <spdlog/spdlog.h>

#include "exec/ledger.hpp"
#include "exec/slurm_executor.hpp"
#include "exec/slurm_util.hpp"
#include "store/fleet_device_repository.hpp"
#include "util/fs.hpp"

namespace kwb::exec {

void SlurmExecutor::relay_progress(Job& job) {
  std::ifstream in(dir_of(job.rec.id) / "progress.jsonl", std::ios::binary);
  if (!in) return;
  in.seekg(std::streamoff(job.progress_offset));
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // a line still being written: read again next time
    job.progress_offset += line.size() + 1;
    auto e = nlohmann::json::parse(line, nullptr, false);
    if (!e.is_discarded() && e.is_object() && e.contains("progress") && e["progress"].is_object()) {
      m_ledger->event(job.rec.id, "progress", e["progress"]);  // a workload's start or samples, a note
      continue;
    }
    if (e.is_discarded() || !e.is_object() || !e.contains("stage") || !e["stage"].is_string()) continue;
    const std::string stage = e["stage"];
    const auto state = slurm_state_of_stage(stage);
    if (!state) continue;  // analyze and compile ran in the daemon's compile pool already
    if (!e.value("finished", false) && state != job.stage_state) {
      m_ledger->advance(job.rec.id, *state);
      job.stage_state = state;
    }
    m_ledger->event(job.rec.id, "stage", e);
  }
}

bool SlurmExecutor::take_result(Job& job) {
  const auto file = dir_of(job.rec.id) / "result.json";
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return false;
  auto text = util::read_file(file);
  if (!text) return false;
  auto r = nlohmann::json::parse(*text, nullptr, false);
  if (r.is_discarded() || !r.is_object() || !r.contains("verdict") || !r["verdict"].is_object()) return false;
  if (r.value("attempt", 0) != job.attempt) return false;  // a job of an earlier attempt
  relay_progress(job);
  if (auto wrong = keep_node_devices(job, r); !wrong.empty()) {
    m_ledger->finish_error(job.rec, wrong);
    return true;
  }
  if (m_cfg.on_verdict) m_cfg.on_verdict(job.rec, r["verdict"]);
  nlohmann::json verdict = r["verdict"];
  if (m_on_remote_verdict) m_on_remote_verdict(job.rec, verdict);
  m_ledger->finish_json(job.rec.id, std::move(verdict));
  // Overheads of the Slurm path (docs/benchmarks/fleet.md): sbatch to the worker's start, and the
  // worker's result to the stored verdict (wall clocks of the daemon's and the node's host).
  const int64_t started = r.value("started_ms", int64_t(0)), written = r.value("finished_ms", int64_t(0));
  spdlog::info("fleet: candidate {}: verdict from Slurm job {} (submit to start {} ms, worker {} ms, result to "
               "verdict {} ms)", job.rec.id, r.value("job_id", job.job_id),
               job.submitted_ms > 0 && started > 0 ? started - job.submitted_ms : -1, written - started,
               written > 0 ? slurm_epoch_ms() - written : -1);
  return true;
}

std::string SlurmExecutor::keep_node_devices(const Job& job, const nlohmann::json& r) {
  const std::string node_class = r.value("device_class", "");
  const std::string partition = slurm_partition_of(m_cfg, job.rec.backend, job.rec.device_class);
  const std::string node = r.value("node", "");
  store::FleetDeviceRepository fleet(m_db);
  if (r.contains("devices") && r["devices"].is_array())
    for (const auto& d : r["devices"]) {
      if (!d.is_object() || !d.contains("device") || !d["device"].is_object()) continue;
      const auto& dev = d["device"];
      store::FleetDevice f;
      f.device_class = d.value("device_class", "");
      // The partition of its class where one is configured (a job that asked for no class ran in
      // the backend's partition, which may be the cluster's default), else the job's.
      f.partition = partition;
      for (const auto& c : m_cfg.device_classes)
        if (c.device_class == f.device_class) f.partition = c.partition;
      f.node = node;
      try {
        f.device.id = dev.at("id").get<std::string>();
        f.device.kind = dev.at("kind").get<std::string>();
        f.device.name = dev.value("name", "");
        f.device.copy_bytes_per_s = dev.value("copy_bytes_per_s", 0.0);
        if (dev.contains("flops_per_s") && dev["flops_per_s"].is_number()) f.device.flops_per_s = dev["flops_per_s"].get<double>();
        f.device.details = dev.value("calibration", nlohmann::json::object());
        f.device.calibrated_at = dev.value("calibrated_at", "");
      } catch (const std::exception& e) {
        spdlog::warn("fleet: candidate {}: a device of the worker's result is malformed ({}); not kept", job.rec.id, e.what());
        continue;
      }
      if (f.device_class.empty() || f.device.id.empty()) continue;
      if (auto w = fleet.put(f); !w) spdlog::warn("fleet: the calibration of {} was not stored: {}", f.device.id, w.error().what());
    }
  if (node_class.empty()) return "";
  if (!job.rec.device_class.empty() && node_class != job.rec.device_class)
    return "fleet: the candidate asked for device class " + job.rec.device_class + ", and Slurm job " + job.job_id +
           " ran on node " + (node.empty() ? "?" : node) + " of class " + node_class + " (partition '" + partition +
           "' of --slurm-device-classes holds nodes of another class: a fault of the configuration, not a judgement "
           "of the candidate)";
  if (job.rec.device_class.empty()) {
    store::CandidateRepository candidates(m_db);
    if (auto w = candidates.settle_device_class(job.rec.id, node_class); !w)
      spdlog::warn("fleet: candidate {}: its device class was not stored: {}", job.rec.id, w.error().what());
  }
  return "";
}

}  // namespace kwb::exec
