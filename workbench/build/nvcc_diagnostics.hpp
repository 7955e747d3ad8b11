#pragma once
// nvcc output to verdict diagnostics. nvcc's C++ front end (EDG) writes
//   /job/candidate.cu(12): error: expected a ";"
//     <the line, as preprocessed>
//     ^
// with the column only as a caret under the echoed line; the host compiler's own messages (g++
// preprocessing the file first, e.g. a missing #include) use "file:line:col: severity: message";
// ptxas, nvlink and the nvcc driver write one-line messages without a source position.
#include <string_view>
#include <vector>

#include "core/verdict.hpp"

namespace kwb::build {

// Lines naming `compiled_name` (also as "/job/<name>" or "./<name>") are reported as
// `display_name`; other files keep their names. `source`, when given, is the compiled text: a
// caret column is kept only where the echoed line matches the source line (EDG echoes the line
// after macro expansion, where columns no longer match the user's file); otherwise col is 0.
// Diagnostics repeated by nvcc's host and device passes are reported once. Messages of ptxas,
// nvlink and the nvcc driver become errors on `display_name` at line 0.
std::vector<core::Diagnostic> parse_nvcc_diagnostics(std::string_view log, std::string_view compiled_name,
                                                     std::string_view display_name, std::string_view source = {});

}  // namespace kwb::build
