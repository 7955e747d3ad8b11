#pragma once
// Adding a spec to the library while the workbench runs (docs/specs.md "Adding an op"; POST
// /v1/specs, kwb spec add): the request's files are checked (names, sizes), loaded and validated
// like any spec, compared with the version the catalog holds, committed into the library as one
// commit under specs/<op>/ with trailers, and added to the catalog, which serves it at once.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "core/spec.hpp"
#include "library/repository.hpp"
#include "library/spec_folders.hpp"
#include "spec/catalog.hpp"

namespace kwb::library {

// What a spec folder sent as files may hold (docs/specs.md "Adding an op").
struct SpecFileLimits {
  size_t max_files = 16;
  size_t max_file_bytes = 256 << 10;
  size_t max_total_bytes = 768 << 10;  // below the API's request body limit (1 MiB) with JSON escapes
};

// File names only ([A-Za-z0-9_][A-Za-z0-9_.-]*, at most 64 characters: no paths, no "..",
// no hidden files), sizes within the limits, spec.json and reference.cpp present. Errors name
// `files.<name>`.
util::Result<void> check_spec_files(const FolderFiles& files, const SpecFileLimits& limits = {});

// Deeper checks of a new spec before it is committed, in `folder` (its files as sent): the run-time
// reference build and `kwb spec check` plug in here (issue #16). May be empty.
using SpecCheck = std::function<util::Result<void>(const core::Spec& spec, const std::filesystem::path& folder)>;

// Every check a new spec passes before it is committed: every file is part of the spec (spec.json,
// reference sources, the baselines' files, README.md), the op name is not reserved, then `deep`.
// Errors name the file and field.
util::Result<void> validate_new_spec(const core::Spec& spec, const FolderFiles& files, const std::filesystem::path& folder,
                                     const SpecCheck& deep);

struct SpecAddResult {
  enum class Code { added, unchanged, invalid, conflict, internal } code = Code::internal;
  util::Error error;        // invalid, conflict, internal: `where` is "<file>: <field>" where known
  const core::Spec* spec = nullptr;  // added, unchanged: the catalog's spec
  std::string commit;       // added: the library commit
  std::string replaced;     // added: "" (a new op), "v1" (a new version), "v2 (descriptive edit)"
  nlohmann::json body() const;  // the reply of POST /v1/specs for added / unchanged
};

class SpecIntake {
 public:
  // `root`: where spec folders are materialized (<workspace>/cache/specs).
  SpecIntake(Repository& repo, spec::Catalog& catalog, std::filesystem::path root, SpecCheck deep = {})
      : m_repo(repo), m_catalog(catalog), m_root(std::move(root)), m_deep(std::move(deep)) {}
  // Thread-safe (one addition at a time; commits of other processes are compare-and-swap).
  SpecAddResult add(const FolderFiles& files, const std::string& added_by);

 private:
  Repository& m_repo;
  spec::Catalog& m_catalog;
  std::filesystem::path m_root;
  SpecCheck m_deep;
  std::mutex m_mutex;
};

}  // namespace kwb::library
