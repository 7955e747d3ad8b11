#pragma once
// NVRTC compiles of `cuda`-form candidates: a pool of warm, sandboxed kwb-nvrtc-worker
// processes (compiles run in parallel, one per worker), the cubin cache, candidate flag checks
// and NVRTC diagnostics. The pool can outlive one candidate (the daemon keeps one); a worker is
// recycled after a number of requests so a compromised compiler does not serve for long.
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "build/nvrtc_cache.hpp"
#include "core/verdict.hpp"
#include "util/error.hpp"

namespace kwb::build {

class NvrtcWorker;

struct NvrtcOptions {
  std::filesystem::path worker;          // kwb-nvrtc-worker
  std::filesystem::path bwrap = "/usr/bin/bwrap";
  std::filesystem::path scratch_parent;  // the workers' empty sandbox folders go here
  std::filesystem::path cache_dir;       // empty: no cache
  std::string arch = "sm_90a";           // --gpu-architecture (a real sm_XX[a]: NVRTC emits a cubin)
  std::filesystem::path cuda_include = "/usr/local/cuda/include";
  int timeout_ms = 60000;                // per compile
  int max_workers = 4;
  int max_requests_per_worker = 100;
};

struct CudaCompileRequest {
  std::string source;
  std::string display_name;              // the user's file name, used in diagnostics
  std::vector<std::string> defines;      // -DNAME=value of one tunable config
  std::vector<std::string> extra_flags;  // candidate flags (checked by check_nvrtc_flags)
};

struct CudaCompileResult {
  bool ok = false;
  bool timed_out = false;
  bool cached = false;
  bool internal = false;  // NVRTC itself failed (not the candidate's code): a workbench error
  std::vector<core::Diagnostic> diagnostics;
  std::string log;
  std::string cubin;
  std::string ptx;
  std::string l2_policy;  // the code sets L2 eviction policies (the PTX instruction found), or ""
  std::string reason;  // one line when !ok
  std::string key;     // cache key (hex)
  double wall_ms = 0;
};

// Candidate flags for NVRTC: only code-generation and macro flags pass.
util::Result<void> check_nvrtc_flags(const std::vector<std::string>& flags);

class NvrtcCompiler {
 public:
  explicit NvrtcCompiler(NvrtcOptions opt);
  ~NvrtcCompiler();

  // NVRTC's version, read once from a worker ("13.0").
  util::Result<std::string> version();
  // "NVRTC 13.0 --gpu-architecture=sm_90a -std=c++17" (after version() succeeded).
  std::string identity() const;
  const NvrtcOptions& options() const { return m_opt; }
  std::vector<std::string> base_options() const;
  // Compiles every request (in parallel over up to max_workers workers, cache first). Errors
  // only for failures of the workbench; compile errors and timeouts are results. Workers are
  // started on the calling thread and die with it (sandbox::spawn): call from a long-lived thread.
  util::Result<std::vector<CudaCompileResult>> compile_all(const std::vector<CudaCompileRequest>& reqs);

 private:
  util::Result<std::unique_ptr<NvrtcWorker>> take();
  void give(std::unique_ptr<NvrtcWorker> w);
  CudaCompileResult compile_one(NvrtcWorker& w, const CudaCompileRequest& req, const std::vector<std::string>& options,
                                std::string& worker_error);

  NvrtcOptions m_opt;
  mutable std::mutex m_mutex;  // guards m_idle and m_version (compile_all may run on several threads)
  std::vector<std::unique_ptr<NvrtcWorker>> m_idle;
  std::string m_version;
};

}  // namespace kwb::build
