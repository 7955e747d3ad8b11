#pragma once
// The first commit of a new library: every kernel of the source tree's kernels/ folder
// (<op>/<backend>/<name>.{cpp,cu} + <name>.json metadata) and a dispatch.json naming each as the
// incumbent of its op, variant and backend for device class "any".
#include <filesystem>
#include <map>
#include <string>

#include "util/error.hpp"

namespace kwb::library {

// Library path -> content, dispatch.json included. Errors name the file and field.
util::Result<std::map<std::string, std::string>> seed_files(const std::filesystem::path& kernels_dir);

}  // namespace kwb::library
