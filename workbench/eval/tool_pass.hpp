#pragma once
// The NVIDIA tools a CUDA candidate may be run under after its checks (docs/profiles.md): Nsight
// Compute for a profile of each bench workload's chosen config, compute-sanitizer for reports of
// where a kernel goes wrong. Both wrap kwb-gpu-runner inside the candidate's own sandbox (GPU
// passed through, no network, the ordinary seccomp filter since the tool starts the runner), on
// the same cubin, launch plan and a workload's inputs; the pass is a session of its own, so the
// timed figures never see it. This file finds the tools and says how each is invoked; the run
// itself is CudaEvaluation's (cuda_tool_pass.cpp).
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace kwb::eval {

// A tool on this machine: where it is, or why it is not there.
struct ToolBinary {
  std::filesystem::path host;  // empty: not found
  std::string missing;         // why not ("" when found)
  bool found() const { return !host.empty(); }
};

// Nsight Compute's `ncu`: $KWB_NCU, else <cuda>/bin/ncu ($KWB_CUDA_PATH or /usr/local/cuda).
ToolBinary find_ncu();
// `compute-sanitizer`: $KWB_COMPUTE_SANITIZER, else <cuda>/bin/compute-sanitizer.
ToolBinary find_compute_sanitizer();

// One run of a tool around the runner: the argv before the runner's, what it needs bound, the
// file in the session's job folder its report goes to, and the limit on each runner command
// (a profile replays every kernel dozens of times; memcheck slows one 10-100x).
struct ToolInvocation {
  std::string name;  // "ncu" | "memcheck" | "racecheck" | "synccheck" | "initcheck"
  std::vector<std::string> argv;
  std::vector<std::pair<std::filesystem::path, std::string>> binds;
  std::string report_file;  // in the job folder
  int command_timeout_ms = 120000;
  // Every tensor in a device allocation of its own (the runner's KWB_GPU_SEPARATE_BUFFERS), so
  // that memcheck sees an access past a tensor's end: compute-sanitizer's runs, not ncu's.
  bool separate_buffers = false;
};

// Nsight Compute with `options` (what to collect: eval/ncu_report.hpp ncu_profile_options) on the
// candidate's kernels only (the runner's own helpers are named kwb_*), at most `launches` of
// them, the raw page as CSV into the report file.
ToolInvocation ncu_invocation(const ToolBinary& ncu, const std::vector<std::string>& options, int launches);
// compute-sanitizer with `tool` (memcheck, racecheck, synccheck, initcheck), the candidate's
// kernels only, at most `print_limit` reports.
ToolInvocation sanitizer_invocation(const ToolBinary& sanitizer, const std::string& tool, int print_limit);

}  // namespace kwb::eval
