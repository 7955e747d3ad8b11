#pragma once
// What a spec means, as one digest (docs/specs.md "Versions"): a verdict, a tuning record and an
// incumbent are only comparable under the same meaning, so two specs of one op and version must
// have the same digest, and changing the meaning needs a new version.
//
// Meaning-bearing: every field of spec.json except the descriptive ones (`summary`,
// `distributions[].note`, `workloads.*[].label`, `baselines`), and every reference source of the
// folder (`reference.cpp`, `reference.cu`, and any other file whose name starts with
// `reference`). A new field of spec.json is meaning-bearing unless it is added to that list.
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace kwb::spec {

// Whether a file of a spec folder is a reference source (its content is part of the meaning).
bool is_reference_source(std::string_view file_name);

// The digest of spec.json's text (comments allowed) and the reference sources (file name ->
// content); errors name `file` like the loader's.
util::Result<std::string> meaning_digest(std::string_view spec_json, const std::map<std::string, std::string>& references,
                                         const std::string& file);

// The reference sources of a spec folder, by file name.
util::Result<std::map<std::string, std::string>> read_reference_sources(const std::filesystem::path& folder);

}  // namespace kwb::spec
