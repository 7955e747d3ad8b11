#pragma once
// One kwb-gpu-runner session: a job folder (bound at /job; cubins go there), the shared arena and
// the sandboxed runner with the GPU passed through, started and asked for the device identity.
// Device discovery opens one; `kwb eval` hands that same session to the evaluation, so a CUDA
// evaluation pays for one sandbox start and one cuInit. A daemon may start the next candidate's
// session while the device is busy with the current one (sessions are never shared between
// candidates: device memory is not cleared between allocations).
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/arena.hpp"
#include "eval/runner_client.hpp"

namespace kwb::eval {

struct GpuSessionOptions {
  std::filesystem::path gpu_runner;  // kwb-gpu-runner
  std::filesystem::path bwrap = "/usr/bin/bwrap";
  std::filesystem::path jobs_dir;    // the session's job folder is made here
  int command_timeout_ms = 10000;    // load, map and call (the run timeout)
  std::filesystem::path driver;      // libcuda to load (KWB_CUDA_DRIVER); empty: the usual places
  bool keep_job = false;             // leave the job folder for inspection
  std::string who = "the candidate"; // what the runner runs, as failure reasons name it
  // Which GPU (docs/architecture.md "Lanes"). Every GPU sandbox orders devices by PCI bus id
  // (CUDA_DEVICE_ORDER), so discovery's ordinals are the lanes'. Defaults: every GPU visible,
  // the first one used.
  std::string visible_device;  // CUDA_VISIBLE_DEVICES inside the sandbox (a GPU-<uuid>); "" = all
  int ordinal = 0;             // the device among the visible ones
  int device_minor = -1;       // only /dev/nvidia<minor> is bound; -1 = every GPU's node
  // The GPU's key (CudaDevice::key), naming its gate (eval/device_gate.hpp); "" = not bound to one
  // GPU, no gate.
  std::string device_key;
  // A tool wrapping the runner (RunnerConfig::tool_argv; eval/tool_pass.hpp) and what it needs
  // bound read-only besides /usr (host path, inside path): e.g. /opt, where Nsight Compute lives.
  std::vector<std::string> tool_argv;
  std::vector<std::pair<std::filesystem::path, std::string>> tool_binds;
  bool separate_buffers = false;  // ToolInvocation::separate_buffers
};

struct GpuSession {
  std::filesystem::path job;
  std::optional<SharedArena> arena;
  std::unique_ptr<RunnerSession> runner;
  nlohmann::json device;  // the runner's `device` reply: present, name, sms, ... or reason
  bool keep_job = false;
  ~GpuSession();
};

// Starts the session and reads the device identity (no GPU is not an error: device.present is
// false and device.reason says why). Errors are failures of the workbench (no runner binary, ...).
util::Result<std::unique_ptr<GpuSession>> start_gpu_session(const GpuSessionOptions& opt);

}  // namespace kwb::eval
