#pragma once
// Where a compiled candidate's device stages (validate, benchmark, decide) run (docs/fleet.md):
//  - local (the default): the pipeline's own device lanes, one per device of this machine, each
//    the device's exclusive benchmark slot (pipeline.cpp; no DeviceExecutor object);
//  - slurm: one batch job per candidate on a cluster, running `kwb worker` (slurm_executor.hpp).
// An executor reports back to the candidates' ledger (ledger.hpp), which writes the verdict
// exactly once, in one transaction, as for the local lanes.
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/verdict.hpp"
#include "store/candidate_repository.hpp"
#include "util/error.hpp"

namespace kwb::exec {

// A device class an executor evaluates on (docs/fleet.md "Device classes"): GET /v1/devices lists
// them, and a submission's device_class must be one of them.
struct DeviceClassInfo {
  std::string device_class;  // "cpu-x86_64-v3", "cuda-sm_90" (library/device_class.hpp)
  std::string kind;          // "cpu" (cpu candidates) | "cuda" (cuda and cuda-launcher candidates)
  std::string partition;     // slurm: the partition its jobs go to ("" = the cluster's default)
};

// "cuda" for a cuda-sm_<NN> class, else "cpu".
inline std::string device_class_kind(const std::string& device_class) {
  return device_class.rfind("cuda-", 0) == 0 ? "cuda" : "cpu";
}

class Ledger;

// Applied to a remote worker's verdict just before the ledger stores it (kwb serve: the
// auto-promote policy, which may amend its reason).
using RemoteVerdictFn = std::function<void(const store::CandidateRecord& rec, nlohmann::json& verdict)>;

class DeviceExecutor {
 public:
  virtual ~DeviceExecutor() = default;
  virtual std::string name() const = 0;
  // Before the pipeline requeues unfinished candidates: re-attaches to the work still running
  // for them (a daemon restart) and returns their ids; the pipeline leaves those alone.
  virtual util::Result<std::set<std::string>> start(Ledger& ledger, RemoteVerdictFn on_verdict) = 0;
  // A candidate analysed and compiled by the compile pool (attempt: its attempts count now):
  // run its device stages. Returns at once; the verdict arrives through the host.
  virtual void run(const store::CandidateRecord& rec, const std::string& source, int attempt) = 0;
  // The candidate's cancellation was recorded: stop its work (the ledger is told when it stopped).
  virtual void cancel(const std::string& id) = 0;
  // Stops watching (the work itself goes on and is re-attached at the next start).
  virtual void stop() = 0;
  virtual size_t in_flight() const = 0;
  // The device classes a submission may ask for (their calibrations: GET /v1/devices).
  virtual std::vector<DeviceClassInfo> device_classes() const = 0;
};

}  // namespace kwb::exec
