#include "eval/cuda_session.hpp"

#include "util/fs.hpp"

namespace kwb::eval {

GpuSession::~GpuSession() {
  if (runner) runner->finish();
  runner.reset();
  std::error_code ec;
  if (!job.empty() && !keep_job) std::filesystem::remove_all(job, ec);
}

util::Result<std::unique_ptr<GpuSession>> start_gpu_session(const GpuSessionOptions& opt) {
  std::error_code ec;
  if (!std::filesystem::exists(opt.gpu_runner, ec))
    return util::fail("cuda", "kwb-gpu-runner not found at " + opt.gpu_runner.string() +
                                  " (it is built only where the CUDA toolkit is found)");
  auto s = std::make_unique<GpuSession>();
  s->keep_job = opt.keep_job;
  auto job = util::make_unique_dir(opt.jobs_dir, "job-");
  if (!job) return std::unexpected(job.error());
  s->job = *job;
  auto arena = SharedArena::create();
  if (!arena) return std::unexpected(arena.error());
  s->arena.emplace(std::move(*arena));
  RunnerConfig cfg{opt.gpu_runner, opt.bwrap, s->job, 1, opt.command_timeout_ms, 0};
  cfg.gpu = true;
  cfg.who = opt.who;
  cfg.gpu_minor = opt.device_minor;
  cfg.env = {{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}};
  if (!opt.visible_device.empty()) cfg.env.emplace_back("CUDA_VISIBLE_DEVICES", opt.visible_device);
  cfg.cpu_seconds = 3600;  // over the session; the runner sleeps (blocking sync) while kernels run
  if (!opt.driver.empty()) cfg.binds.push_back({opt.driver.parent_path(), "/kwb/driver"});
  cfg.tool_argv = opt.tool_argv;
  if (opt.separate_buffers) cfg.env.emplace_back("KWB_GPU_SEPARATE_BUFFERS", "1");
  cfg.binds.insert(cfg.binds.end(), opt.tool_binds.begin(), opt.tool_binds.end());
  auto runner = RunnerSession::start(cfg, *s->arena);
  if (!runner) return std::unexpected(runner.error());
  s->runner = std::move(*runner);
  nlohmann::json cmd = {{"op", "device"}, {"ordinal", opt.ordinal}};
  if (!opt.driver.empty()) cmd["driver"] = "/kwb/driver/" + opt.driver.filename().string();
  auto info = s->runner->command(cmd, std::max(opt.command_timeout_ms, 60000), "device start-up");
  if (!info)
    s->device = {{"present", false},
                 {"reason", "no CUDA device: the GPU runner failed during start-up: " + info.error().reason}};
  else
    s->device = *info;
  // Every later command holds the GPU's gate. The start-up above does not, as before gates
  // existed: a pool starts the next session while a candidate times, and the start-up is the
  // driver's (context, helper module, one launch of each helper), not a candidate's work.
  s->runner->set_gate(device_gate(opt.device_key));
  return s;
}

}  // namespace kwb::eval
