#pragma once
// "The reference builds with no warnings": reference.cpp compiled with -Wall -Wextra (by
// eval::ReferenceHost::build, in the compile sandbox; app/spec_command.cpp wires it).
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/spec.hpp"
#include "core/verdict.hpp"
#include "speccheck/problem.hpp"
#include "util/error.hpp"

namespace kwb::speccheck {

// What a build of spec's reference said: every compiler diagnostic (errors and warnings), or an
// error when the build could not be attempted (no compiler, no sandbox).
struct ReferenceBuild {
  bool ok = false;  // an object was produced
  std::vector<core::Diagnostic> diagnostics;
  std::string reason;  // one line when !ok
};
using ReferenceBuilder = std::function<util::Result<ReferenceBuild>(const core::Spec& spec)>;

// Every diagnostic is an error problem naming reference.cpp and line:col; a failed build too.
// Returns whether the reference built.
bool check_reference_build(const core::Spec& spec, const ReferenceBuilder& build, Findings& out);

}  // namespace kwb::speccheck
