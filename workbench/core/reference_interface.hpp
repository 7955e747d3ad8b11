#pragma once
// The files a trusted reference is compiled against, as the workbench was built with them
// (embedded by CMake from workbench/core/): the reference build writes them next to the
// reference's source (eval/reference_host.cpp), `kwb export` into packages.
#include <string>
#include <utility>
#include <vector>

namespace kwb::core {

// {"core/reference.hpp", text}, {"core/dtype.hpp", ...}, {"core/parallel_ranges.hpp", ...},
// {"core/reference_abi.h", ...}, {"core/reference_entry.hpp", ...}.
const std::vector<std::pair<std::string, std::string>>& reference_interface_files();

}  // namespace kwb::core
