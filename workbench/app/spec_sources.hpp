#pragma once
// Where a kwb command's specs come from (docs/specs.md "Where specs live"), highest precedence
// first: the --specs folders (in the order given), the library repository's specs/<op>/ (written
// into <workspace>/cache/specs, read from the head commit), and specs-dir (the shipped specs/).
#include <filesystem>
#include <vector>

#include "library/repository.hpp"
#include "library/spec_intake.hpp"
#include "spec/catalog.hpp"
#include "speccheck/checker.hpp"
#include "util/settings.hpp"

namespace kwb::app {

// <workspace>/cache/specs: the library's spec folders, one per op and content.
std::filesystem::path spec_cache_dir(const util::Settings& settings);
// The `specs` setting, split at ':'.
std::vector<std::filesystem::path> extra_spec_dirs(const util::Settings& settings);
// The catalog from every source. `library`: the open library, or null to open the one at the
// `library` setting if it exists (a command that only reads specs never creates a library).
util::Result<spec::Catalog> load_catalog(const util::Settings& settings, library::Repository* library = nullptr);

// How `kwb spec check` reaches references: eval::ReferenceHost builds reference.cpp with -Wall
// -Wextra in the compile sandbox (one build serves the warning check and the runs) and runs it in a
// reference process.
speccheck::ReferenceAccess spec_reference_access(const util::Settings& settings);
// The checks a spec added at run time passes beyond the loader's (library::validate_new_spec
// calls it): every error of `kwb spec check` on the folder, reference build and runs included.
library::SpecCheck spec_checks(const util::Settings& settings);

}  // namespace kwb::app
