#pragma once
// `kwb spec check DIR`: every problem of a spec folder (or of each <op>/ folder of a catalog),
// each with file, field and reason (docs/specs.md, "Checking a spec").
#include <filesystem>
#include <string>
#include <vector>

#include "eval/reference.hpp"
#include "speccheck/build_check.hpp"
#include "speccheck/problem.hpp"
#include "speccheck/reference_checks.hpp"
#include "speccheck/structural.hpp"
#include "speccheck/tolerance_help.hpp"

namespace kwb::speccheck {

// How the checker reaches references; either may be empty, which skips its checks.
struct ReferenceAccess {
  ReferenceBuilder build;      // "builds with no warnings"
  eval::ReferenceOpener open;  // the runs: written, deterministic, finite, tolerance sanity
  TemplateOpener open_template;  // the tolerance headroom of the CPU templates
};

struct CheckOptions {
  DeviceLimits limits = DeviceLimits::defaults();
  ReferenceCheckOptions reference;
  bool reference_checks = true;  // false: schema, expressions, memory, coverage, roofline only
};

struct Report {
  std::vector<std::string> folders;  // the spec folders checked, in order
  std::vector<Problem> problems;     // in folder order, then in the order the checks ran
};

// `dir` holds a spec.json (one spec) or folders that do (a catalog); an error only when it is
// neither, or cannot be read.
util::Result<Report> check_path(const std::filesystem::path& dir, const CheckOptions& options,
                                const ReferenceAccess& access);

// One spec folder (spec.json + reference.cpp).
std::vector<Problem> check_folder(const std::filesystem::path& folder, const CheckOptions& options,
                                  const ReferenceAccess& access);

}  // namespace kwb::speccheck
