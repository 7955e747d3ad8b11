#pragma once
// Flags a cuda-launcher candidate may pass to nvcc. nvcc runs its steps through /bin/sh with
// the flags pasted into double-quoted command lines, so beyond refusing anything that reads
// other files, loads code or changes the linker, the values of the flags that take one are held
// to characters the shell treats literally there (no $, `, ", \). The libraries -lcublas and
// -lcublasLt are the only ones a candidate may ask for; the toolchain adds the rpath itself.
#include <string>
#include <vector>

#include "util/error.hpp"

namespace kwb::build {

// Allowed: -O0 .. -O3, -D<NAME>[=<value>], -U<NAME>, -W<warning> (not -Wl, -Wa, -Wp), --use_fast_math,
// -lineinfo, -lcublas, -lcublasLt, --extra-device-vectorization, -maxrregcount=<N>.
// The error's `where` is "flags[i]" and its message names the flag and what is allowed.
util::Result<void> check_launcher_flags(const std::vector<std::string>& flags);

// The cuBLAS libraries among already checked flags ("-lcublas", "-lcublasLt"), in order.
std::vector<std::string> launcher_libraries(const std::vector<std::string>& flags);

}  // namespace kwb::build
