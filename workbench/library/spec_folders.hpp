#pragma once
// Specs in the library repository (docs/library.md "Specs"): `specs/<op>/` beside the kernels,
// one folder per op holding its current version (older versions are in the history). The
// workbench reads them from the head commit and writes each into a content-addressed folder of
// the workspace (never the repository's working tree), where the loader and the reference build
// read them like any other spec folder.
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "library/repository.hpp"

namespace kwb::library {

inline constexpr const char* k_specs_prefix = "specs/";

using FolderFiles = std::map<std::string, std::string>;  // file name -> content

// The spec folders of a commit (`commit` empty: the head), op -> files.
util::Result<std::map<std::string, FolderFiles>> spec_folders(Repository& repo, const std::string& commit = "");

// Digest of a folder's files (names and contents), for its content-addressed place.
std::string folder_digest(const FolderFiles& files);

// Writes `files` into <root>/<op>/<first 16 hex of folder_digest>/ unless that folder is already
// there (written whole: a staged folder renamed into place); returns the folder.
util::Result<std::filesystem::path> materialize_folder(const std::filesystem::path& root, const std::string& op,
                                                      const FolderFiles& files);

// Every spec folder of the head, materialized under `root`: (op, folder) in op order.
util::Result<std::vector<std::pair<std::string, std::filesystem::path>>> materialize_specs(
    Repository& repo, const std::filesystem::path& root);

}  // namespace kwb::library
