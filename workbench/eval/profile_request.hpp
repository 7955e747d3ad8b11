#pragma once
// What came of a profile asked for with "profile": true (`kwb eval --profile`, `kwb profile ID`,
// MCP profile_kernel): docs/verdict.md "Profiles". Nsight Compute runs are not wired into the
// evaluation yet, so a request is always answered with why there is no profile: no device (the
// usual case off the GPU machine), a cpu candidate, a candidate that did not get to timing, or,
// on a device, that the ncu run path is not there yet. The timed figures never depend on it.
#include <string>

#include "core/feedback.hpp"

namespace kwb::eval {

// From the verdict's backend ("cpu" | "cuda" | "cuda-launcher") and status name ("no_device", ...).
core::ProfileOutcome profile_outcome(const std::string& backend, const std::string& status);

}  // namespace kwb::eval
