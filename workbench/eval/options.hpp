#pragma once
// Options of one evaluation (filled from util::Settings and CLI flags).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kwb::eval {

struct EvalOptions {
  std::filesystem::path workspace;  // jobs/ and kwb.db live here
  std::filesystem::path runner;     // kwb-runner
  std::filesystem::path bwrap = "/usr/bin/bwrap";
  std::string cxx = "g++";
  uint64_t seed = 0;            // 0: secret seeds from getrandom (the default); else reproducible
  int time_budget_ms = 1000;    // per bench workload
  std::string gpu_clock = "cupti";  // "cupti" | "events" (the gpu-clock setting)
  int compile_timeout_ms = 60000;
  int run_timeout_ms = 10000;   // per runner command
  int reference_timeout_ms = 600000;  // per computation of a spec's reference
  std::filesystem::path reference_cache;  // compiled references; empty: <workspace>/cache/reference
  int threads = 1;
  int64_t run_memory_bytes = 4ll << 30;  // beyond the shared buffers
  bool benchmark = true;        // false: correctness only
  // Non-empty: validate and time only these bench workloads (fast feedback while iterating; such
  // a verdict cannot be promoted). Names are checked by the caller.
  std::vector<std::string> bench;
  // A `bench` list naming no workload: the decide stage prepares an incumbent this way when its
  // tuning records are current (validated on the test workloads; the comparison checks the rest).
  static constexpr const char* k_no_bench = "(validation only)";
  bool keep_job = false;        // keep workspace/jobs/<id> for inspection
  bool compile_cache = true;    // reuse objects from <workspace>/cache
  // A tunable space larger than the grid (docs/tuning.md): how many configs the search may time;
  // 0: a fifth of the space, at least 16 (eval/config_search.hpp default_search_budget).
  size_t search_budget = 0;
};

}  // namespace kwb::eval
