#include "app/executor_setup.hpp"

#include <set>
#include <sstream>

#include <spdlog/spdlog.h>

#include "app/commands.hpp"
#include "core/verdict_parse.hpp"
#include "exec/slurm_executor.hpp"
#include "library/device_class.hpp"
#include "library/referee.hpp"
#include "store/tuning_repository.hpp"

namespace kwb::app {

namespace {

std::filesystem::path fleet_dir_setting(const util::Settings& settings) {
  std::string dir = settings.get("fleet-dir");
  const std::string prefix = "<workspace>";
  if (dir.starts_with(prefix)) dir = settings.get("workspace") + dir.substr(prefix.size());
  return std::filesystem::absolute(dir);
}

util::Result<int> positive_setting(const util::Settings& settings, const char* name) {
  int64_t v = 0;
  try {
    v = settings.get_int(name);
  } catch (const std::invalid_argument& e) {
    return util::fail("settings", e.what());
  }
  if (v < 1 || v > 1000000) return util::fail("settings", std::string("setting ") + name + ": expected a positive integer, got " + std::to_string(v));
  return int(v);
}

}  // namespace

util::Result<std::shared_ptr<exec::DeviceExecutor>> make_executor(const util::Settings& settings, store::Database& db) {
  const std::string kind = settings.get("executor");
  if (kind == "local") return std::shared_ptr<exec::DeviceExecutor>();
  if (kind != "slurm")
    return util::fail("settings", "--executor '" + kind + "' is not one of local, slurm (KWB_EXECUTOR)");
  exec::SlurmConfig cfg;
  cfg.shared_dir = fleet_dir_setting(settings);
  cfg.worker = (std::filesystem::path(util::executable_dir()) / "kwb").string();
  cfg.cpu_partition = settings.get("slurm-partition");
  cfg.gpu_partition = settings.get("slurm-gpu-partition");
  cfg.bin_dir = settings.get("slurm-bin-dir");
  auto classes = exec::parse_slurm_device_classes(settings.get("slurm-device-classes"));
  if (!classes) return std::unexpected(classes.error());
  for (const auto& c : *classes)
    if (auto why = library::why_not_a_device_class(c.device_class); !why.empty() || c.device_class == "any")
      return util::fail("settings", "--slurm-device-classes: " +
                                        (why.empty() ? std::string("'any' is not the class of a device") : why));
  cfg.device_classes = std::move(*classes);
  const std::string exclusive = settings.get("slurm-exclusive");
  if (exclusive != "0" && exclusive != "1")
    return util::fail("settings", "--slurm-exclusive '" + exclusive + "' is not 0 or 1");
  cfg.exclusive_cpu = exclusive == "1";
  auto limit = positive_setting(settings, "slurm-time-limit-min");
  auto tries = positive_setting(settings, "slurm-max-tries");
  auto poll = positive_setting(settings, "slurm-poll-ms");
  auto threads = positive_setting(settings, "threads");
  for (auto* r : {&limit, &tries, &poll, &threads})
    if (!*r) return std::unexpected(r->error());
  cfg.time_limit_min = *limit;
  cfg.max_tries = *tries;
  cfg.poll = std::chrono::milliseconds(*poll);
  cfg.cpus_per_task = *threads;
  std::istringstream extra(settings.get("slurm-sbatch-args"));
  for (std::string arg; extra >> arg;) cfg.extra_args.push_back(arg);
  // The worker reads the same evaluation settings as this daemon: passed to it in its job script.
  for (const auto& info : util::setting_table())
    if (settings_read_by("worker").contains(info.name)) {
      std::string value = settings.get(info.name);
      // The job runs in its folder: relative paths are made absolute here.
      static const std::set<std::string> k_paths = {"workspace", "specs-dir", "kernels-dir", "library", "runner",
                                                    "reference-cache", "worker-dir", "bwrap"};
      if (k_paths.contains(info.name) && !value.empty() && value[0] != '<' && value[0] != '/')
        value = std::filesystem::absolute(value).string();
      cfg.worker_env.emplace_back(info.env, value);
    }
  // The candidate's tuning records (the leaderboard's), as the local decide stage stores them.
  cfg.on_verdict = [&db](const store::CandidateRecord& rec, const nlohmann::json& json) {
    auto v = core::verdict_from_json(json);
    if (!v || v->status != core::Status::accepted) return;
    if (auto put = store::TuningRepository(db).put(library::records_of(*v, rec.source_sha256, rec.id)); !put)
      spdlog::warn("fleet: candidate {}: its tuning records (its leaderboard rows) were not stored: {}", rec.id,
                   put.error().what());
  };
  return std::shared_ptr<exec::DeviceExecutor>(std::make_shared<exec::SlurmExecutor>(db, std::move(cfg)));
}

}  // namespace kwb::app
