// The Slurm executor's configuration and the arguments of its jobs (slurm_executor.hpp).
#include <sstream>

#include "core/backend.hpp"
#include "exec/slurm_executor.hpp"

namespace kwb::exec {

std::string slurm_partition_of(const SlurmConfig& cfg, const std::string& backend, const std::string& device_class) {
  if (!device_class.empty())
    for (const auto& c : cfg.device_classes)
      if (c.device_class == device_class) return c.partition;
  return core::on_gpu(backend) ? cfg.gpu_partition : cfg.cpu_partition;
}

util::Result<std::vector<DeviceClassInfo>> parse_slurm_device_classes(const std::string& text) {
  std::vector<DeviceClassInfo> out;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      return util::fail("settings", "--slurm-device-classes: '" + item +
                                        "' is not CLASS=PARTITION (e.g. cpu-x86_64-v3=cpu,cuda-sm_90=h200)");
    DeviceClassInfo c{item.substr(0, eq), "", item.substr(eq + 1)};
    c.kind = device_class_kind(c.device_class);
    for (const auto& o : out)
      if (o.device_class == c.device_class)
        return util::fail("settings", "--slurm-device-classes: class " + c.device_class + " is named twice");
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::string> sbatch_arguments(const SlurmConfig& cfg, const std::string& candidate_id,
                                          const std::string& backend, const std::filesystem::path& dir,
                                          const std::string& device_class) {
  const bool gpu = core::on_gpu(backend);
  std::vector<std::string> a = {"--parsable",
                                "--job-name=kwb-" + candidate_id,
                                "--chdir=" + dir.string(),
                                "--output=" + (dir / "slurm-%j.out").string(),
                                "--requeue",  // a node failure or a preemption puts it back in the queue
                                "--time=" + std::to_string(std::max(1, cfg.time_limit_min)),
                                "--ntasks=1",
                                "--cpus-per-task=" + std::to_string(std::max(1, cfg.cpus_per_task))};
  const std::string partition = slurm_partition_of(cfg, backend, device_class);
  if (!partition.empty()) a.push_back("--partition=" + partition);
  if (gpu) a.push_back("--gres=gpu:1");  // a GPU of its own: one timing job per GPU
  if (!gpu && cfg.exclusive_cpu) a.push_back("--exclusive");
  a.insert(a.end(), cfg.extra_args.begin(), cfg.extra_args.end());
  return a;
}

}  // namespace kwb::exec
