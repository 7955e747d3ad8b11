#pragma once
// `kwb spec new OP`: a commented spec folder to start an op from. It loads and passes
// `kwb spec check` as written (it describes a copy, y = x); its TODOs say what to change.
#include <filesystem>
#include <string>

#include "util/error.hpp"

namespace kwb::speccheck {

std::string skeleton_spec(const std::string& op);
std::string skeleton_reference(const std::string& op);
// Writes <parent>/<op>/spec.json and reference.cpp; refuses an existing <parent>/<op> and an op
// name that is not [a-z][a-z0-9_]*. Returns the folder.
util::Result<std::filesystem::path> write_skeleton(const std::filesystem::path& parent, const std::string& op);

}  // namespace kwb::speccheck
