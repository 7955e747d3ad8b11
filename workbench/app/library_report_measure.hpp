#pragma once
// `kwb library report --measure` (docs/library.md "Scorecard"): the incumbents of the library's
// head, for this machine's device classes, evaluated here and now through the same path as
// `kwb eval` (sandboxed, validated on fresh inputs, timed on the bench workloads), with the spec's
// vendor baselines (app/baseline_judge.hpp) and the library's other kernels of the same op,
// variant and backend as rivals; CUDA incumbents without a device give `no_device` rows.
#include <functional>
#include <string>
#include <vector>

#include "app/library_support.hpp"
#include "library/repository.hpp"
#include "library/scorecard.hpp"

namespace kwb::app {

struct ReportScope {
  std::string op, backend;          // empty: every op / backend
  std::vector<std::string> bench;   // bench workloads to time (empty: every one)
  bool rivals = true;               // time the library's other kernels too
};

struct MeasuredRows {
  std::vector<library::ScoreRow> rows;
  std::string library_commit;
  std::vector<std::string> devices;  // the devices the rows were measured on
};

// Progress lines ("gemm/cpu/blocked_f32.cpp: timing") for people; may be empty.
using ReportProgress = std::function<void(const std::string&)>;

util::Result<MeasuredRows> measure_scorecard(const spec::Catalog& catalog, library::Repository& repo,
                                             const exec::EvaluationFactory& factory, const CudaBackend& cuda,
                                             const ReportScope& scope, const ReportProgress& progress);

}  // namespace kwb::app
