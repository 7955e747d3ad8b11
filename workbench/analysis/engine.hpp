#pragma once
// The analysis itself, with libclang loaded into the calling process. Only the kwb-analyzer
// worker (and tests or benchmarks on trusted sources, see set_in_process) call it: libclang can
// crash or run unbounded on hostile input (a preprocessor expansion bomb overflows its parser's
// stack), so analyze() normally sends untrusted sources to a worker process (worker_pool.hpp).
#include <filesystem>
#include <string>

#include "analysis/analyzer.hpp"

namespace kwb::analysis::detail {

struct EngineConfig {
  std::string libclang_path;          // empty: KWB_LIBCLANG, else the default candidates
  std::filesystem::path cache_dir;    // empty: a private temporary directory
  std::filesystem::path cuda_path;    // empty: KWB_CUDA_PATH, else /usr/local/cuda

  bool operator==(const EngineConfig&) const = default;
};

// Never throws for candidate input; `available` is false when libclang (or, for CUDA, the CUDA
// headers) cannot be used here or the analyzer itself failed.
Report analyze_here(const Request& request, const EngineConfig& config);
// Builds the precompiled headers of `backend` now. False when analysis is unavailable.
bool warm_up_here(const std::string& backend, const EngineConfig& config);

// -D/-U flags of a candidate (what the analyzer applies; part of the cache key).
std::vector<std::string> defines_of(const std::vector<std::string>& flags);

}  // namespace kwb::analysis::detail
