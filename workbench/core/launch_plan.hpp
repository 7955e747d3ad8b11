#pragma once
// The launch plan of a `cuda`-form candidate (docs/architecture.md "Candidate forms"): which
// `extern "C" __global__` kernels the trusted runner launches, in order, on one stream, with which
// grid / block / dynamic shared memory (expressions over the workload's params and the tunables)
// and which arguments (spec tensors as device pointers, params as int64, scalars as double, or the
// zeroed `workspace`). Written as comment header lines in the source (docs/cuda.md):
//   // kwb:launch softmax_rows grid=(rows) block=(BLOCK) smem=0 args=(x, y, rows, cols)
//   // kwb:tune BLOCK=128,256,512   or ranges: BM=range(32,256,32) BN=pow2(16,256) STAGES=2..5
//   // kwb:constraint BM*BN <= 16384
//   // kwb:workspace bytes=4*rows
// Expressions are kept as validated source text; kwb::spec evaluates them.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kwb::core {

struct LaunchArg {
  enum class Kind { tensor, param, workspace, scalar };
  Kind kind = Kind::tensor;
  std::string name;
  // Position among the variant's tensors (its optional tensors omitted), the spec's params or
  // scalars (0 for workspace).
  int index = 0;
};

struct Launch {
  std::string kernel;              // extern "C" __global__ symbol
  std::vector<std::string> grid;   // 1-3 expressions (x, y, z)
  std::vector<std::string> block;  // 1-3 expressions
  std::string smem = "0";          // dynamic shared memory bytes
  std::vector<LaunchArg> args;
  int line = 0;                    // 1-based line of the kwb:launch comment
};

// One compile-time tunable: each value compiles the source with -DNAME=value.
struct Tunable {
  std::string name;
  std::vector<int64_t> values;
  int line = 0;
};

// A condition over the tunables (`// kwb:constraint BM*BN <= 16384`): the space holds only the
// combinations that satisfy every constraint (spec/tune_space.hpp).
struct TuneConstraint {
  std::string condition;
  int line = 0;
};

struct LaunchPlan {
  std::vector<Launch> launches;
  std::vector<Tunable> tunables;
  std::vector<TuneConstraint> constraints;
  std::string workspace_bytes;  // empty: no workspace
  int workspace_line = 0;
  std::string variant;          // from an optional `// kwb:variant NAME` line
};

// One point of the tunables' space (a combination of values that satisfies the constraints).
struct TuneConfig {
  std::map<std::string, int64_t> values;
  // "BLOCK=256,ROWS=2" or "default" when the plan has no tunables.
  std::string label() const {
    std::string s;
    for (const auto& [k, v] : values) s += (s.empty() ? "" : ",") + k + "=" + std::to_string(v);
    return s.empty() ? "default" : s;
  }
};

// A launch with its dimensions evaluated for one workload and one config.
struct LaunchDims {
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  int64_t smem = 0;
};

// Device limits the plan is checked against (Hopper defaults; the runner checks the real device).
struct LaunchLimits {
  int64_t max_threads_per_block = 1024;
  int64_t max_block[3] = {1024, 1024, 64};
  int64_t max_grid[3] = {2147483647, 65535, 65535};
  int64_t max_smem_bytes = 227 * 1024;  // opt-in dynamic shared memory per block (sm_90)
  int64_t max_workspace_bytes = 16ll << 30;
};

}  // namespace kwb::core
