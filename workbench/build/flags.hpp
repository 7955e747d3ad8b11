#pragma once
// Candidate-supplied compiler flags are checked before compiling: only code-generation and
// macro flags pass; anything that loads plugins, reads other files, or changes the linker or
// the toolchain's search paths is refused with the flag named.
#include <string>
#include <vector>

#include "util/error.hpp"

namespace kwb::build {

util::Result<void> check_flags(const std::vector<std::string>& flags);

}  // namespace kwb::build
