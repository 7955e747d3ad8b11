#pragma once
// Static analysis of a candidate with libclang (docs/analysis.md): the entry signature against
// the spec, forbidden calls and constructs, includes, precision downcasts. Untrusted code is only
// parsed, never executed, and in a kwb-analyzer worker process (a source that crashes or stalls
// the parser costs a worker, not the caller). The source stays in memory (an unsaved file), and
// the parser sees only the system include directories (a virtual file system without
// fall-through), so `#include "/etc/shadow"` or `/dev/zero` is "file not found".
#include <chrono>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "core/launch_plan.hpp"
#include "core/spec.hpp"
#include "core/verdict.hpp"

namespace kwb::analysis {

// cuda: one launch of the candidate's launch plan (core::Launch): the kernel and its arguments.
struct KernelLaunch {
  std::string kernel;
  std::vector<core::LaunchArg> args;  // tensors by spec index, params by spec index, workspace
  int line = 0;                       // of the `// kwb:launch` comment
};

// The launches of a bound launch plan (spec::bind_launch_plan), as a Request takes them.
std::vector<KernelLaunch> launches_of(const core::LaunchPlan& plan);

struct Request {
  const core::Spec& spec;
  const core::Variant& variant;
  std::string backend;       // "cpu" | "cuda" | "cuda-launcher"
  std::string source;
  std::string display_name;  // file name used in findings
  // cuda: the kernels the launch plan names (each must exist as extern "C" __global__); empty:
  // the variant's entry is expected as one __global__ kernel with the spec's signature.
  std::vector<std::string> kernel_names;
  // The candidate's extra compiler flags: -D/-U are applied so that the analyzer sees the code the
  // compiler sees; other flags are ignored here (the build stage checks them).
  std::vector<std::string> flags;
  // cuda: the launch plan's launches; each kernel's parameters must take its arguments (tensor:
  // pointer to the variant's element type, const for inputs; param: 64-bit integer; workspace:
  // any pointer). Kernels named here need not be repeated in kernel_names.
  std::vector<KernelLaunch> launches = {};
  // Longest the analysis may take (0: the configured default, 30 s); past it the source gets a
  // `parse` error and Report::timed_out.
  int timeout_ms = 0;
};

struct Report {
  bool available = false;
  std::string unavailable_reason;  // e.g. "libclang not found: static analysis skipped"
  std::vector<core::Diagnostic> findings;  // each with `rule` set; parse errors have rule "parse"
  double ms = 0;       // wall time of this call
  bool cached = false;  // served from the in-memory cache
  bool timed_out = false;  // the analyzer was stopped at the timeout (never cached)
  // backend "cuda": "nvrtc-prelude" (the fast path) or "cuda-wrapper" (clang's CUDA runtime
  // wrapper: includes the prelude does not fit, or a source it did not parse); else empty.
  std::string parsed_with;

  bool has_errors() const;
  // The finding that decides the verdict: the first parse error (the source is not valid for the
  // analyzer's compiler) if any, else the first rule error; nullptr when there is none.
  const core::Diagnostic* first_error() const;
};

// Thread-safe. Never throws for candidate input; failures of the analyzer itself come back as
// an unavailable report.
Report analyze(const Request& request);

// "<rule>: <file>:<line>:<col>: <message>" (the location is left out when unknown).
std::string format_finding(const core::Diagnostic& d);

struct RuleInfo {
  std::string id, severity, summary;
};
// Every rule the analyzer reports (for docs and GET /v1/analysis/rules).
std::span<const RuleInfo> rules();
// Bumped whenever a rule changes what it reports (part of the cache key).
inline constexpr const char* k_rules_version = "3";

// --- configuration (process-wide; each call takes effect for later analyze() calls) ---

// Where libclang is loaded from; empty: KWB_LIBCLANG, else the default candidates
// ("libclang-19.so.1", ...). KWB_LIBCLANG=none (or a missing file) makes analysis unavailable.
void set_libclang_path(std::string path);
// Directory for the precompiled headers of the common header sets, kept across processes
// (e.g. <workspace>/cache/analysis); empty: a private temporary directory per process.
void set_cache_dir(std::filesystem::path dir);
// CUDA installation whose headers CUDA candidates are parsed against; empty: KWB_CUDA_PATH,
// else /usr/local/cuda.
void set_cuda_path(std::filesystem::path dir);
// The kwb-analyzer worker executable; empty: KWB_ANALYZER, else beside the running executable
// (or in ../bin). Without it analysis is unavailable.
void set_worker_path(std::filesystem::path path);
// Longest time one analysis may take in the worker (default 30 s); beyond it the worker is
// killed and the source gets a `parse` error.
void set_timeout(std::chrono::milliseconds timeout);
// Runs libclang inside this process instead of a worker: faster to start, but a hostile source
// can crash or stall the caller. Only for trusted sources (tests, benchmarks, the worker itself).
void set_in_process(bool in_process);
// Drops the result cache (benchmarks measure uncached analysis with it).
void clear_cache();
// Builds the precompiled header of a backend now rather than on its first analysis (a daemon
// calls this at start-up, off the request path). Returns false when analysis is unavailable.
bool warm_up(const std::string& backend);
// Ends every kwb-analyzer worker now, busy ones too (SIGKILL, reaped), and starts no more: a
// stopping daemon calls it so no worker outlives it (still writing the workspace's analysis
// cache). Analyses in flight end "unavailable", never as a finding against their source.
void stop_workers();

}  // namespace kwb::analysis
