#pragma once
// Compiler output (GCC/Clang style "file:line:col: severity: message") to verdict diagnostics.
#include <string_view>
#include <vector>

#include "core/verdict.hpp"

namespace kwb::build {

// Lines naming `compiled_name` are reported as `display_name`; other files keep their names.
std::vector<core::Diagnostic> parse_diagnostics(std::string_view log, std::string_view compiled_name,
                                                std::string_view display_name);

}  // namespace kwb::build
