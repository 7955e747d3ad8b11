// kwb calibrate: measure this machine's devices again (the CPU's copy bandwidth; each CUDA GPU's
// copy bandwidth and FMA rate) and store them in the workspace, where verdicts' roofline
// percentages and `GET /v1/devices` read them.
#include <cstdio>

#include "app/commands.hpp"
#include "app/workspace_access.hpp"
#include "app/library_support.hpp"
#include "eval/cpu_device.hpp"
#include "eval/cuda_device.hpp"
#include "store/database.hpp"

namespace kwb::app {

namespace {

int run_calibrate(const util::Settings& settings, bool cpu_only, bool init) {
  auto db = open_workspace_db(settings, init);
  if (!db) return std::fprintf(stderr, "kwb calibrate: %s\n", db.error().what().c_str()), 2;
  auto dev = eval::cpu_device(*db, calibration_cache(settings), true);
  if (!dev) return std::fprintf(stderr, "kwb calibrate: %s\n", dev.error().what().c_str()), 2;
  std::printf("%s: copy bandwidth %.2f GB/s (one thread, read + write), last-level cache %zu MiB\n",
              dev->name.c_str(), dev->copy_bytes_per_s / 1e9, dev->llc_bytes >> 20);
  const auto machine = calibration_cache(settings);
  if (!dev->cache_problem.empty()) std::fprintf(stderr, "kwb calibrate: warning: %s\n", dev->cache_problem.c_str());
  else if (machine.enabled()) std::printf("stored in the workspace and in %s (new workspaces of this machine take it from there)\n", machine.file().string().c_str());
  if (cpu_only) return 0;
  auto opt = eval_options(settings);
  auto cuda = find_cuda_backend(*db, opt);  // finds the GPU; its stored calibration is reused ...
  if (!cuda.device.present) {
    std::printf("cuda: %s\n", cuda.device.reason.c_str());
    return 0;
  }
  auto fresh = eval::cuda_device(*db,  // ... so measure again explicitly
                                 eval::GpuSessionOptions{cuda.options.gpu_runner, opt.bwrap, opt.workspace / "jobs",
                                                         opt.run_timeout_ms, cuda.options.driver, false},
                                 true);
  if (!fresh) return std::fprintf(stderr, "kwb calibrate: cuda: %s\n", fresh.error().what().c_str()), 2;
  std::printf("%s: copy bandwidth %.0f GB/s (device to device, read + write; data sheet %.0f GB/s), f32 FMA %.1f "
              "TFLOP/s (data sheet %.1f)\n",
              fresh->describe().c_str(), fresh->copy_bytes_per_s / 1e9, fresh->sheet_bytes_per_s / 1e9,
              fresh->fma_flops_per_s / 1e12, fresh->sheet_f32_flops / 1e12);
  return 0;
}

}  // namespace

void add_calibrate_command(CLI::App& app, util::Settings& settings, int& code) {
  auto* cmd = app.add_subcommand("calibrate", "Measure the device peaks (CPU copy bandwidth; GPU copy bandwidth and "
                                              "FMA rate) and store them in the workspace");
  auto cpu_only = std::make_shared<bool>(false);
  cmd->add_flag("--cpu-only", *cpu_only, "Only the CPU");
  auto init = std::make_shared<bool>(false);
  add_init_flag(*cmd, *init);
  add_setting_flags(*cmd, settings);
  cmd->callback([&settings, &code, cpu_only, init] { code = run_calibrate(settings, *cpu_only, *init); });
}

}  // namespace kwb::app
