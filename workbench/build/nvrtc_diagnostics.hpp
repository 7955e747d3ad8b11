#pragma once
// NVRTC's program log to verdict diagnostics. NVRTC writes
//   candidate.cu(12): error: identifier "foo" is undefined
//       y[0] = foo;
//              ^
// (no column in the message line; the column comes from the caret line under the quoted
// source line, or is 0 when there is none).
#include <string_view>
#include <vector>

#include "core/verdict.hpp"

namespace kwb::build {

// Lines naming `compiled_name` are reported as `display_name`; other files keep their names.
// Option errors ("nvrtc: error: unrecognized option ...") become a diagnostic at line 0.
std::vector<core::Diagnostic> parse_nvrtc_log(std::string_view log, std::string_view compiled_name,
                                              std::string_view display_name);

}  // namespace kwb::build
