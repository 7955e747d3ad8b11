#pragma once
// Where a kwb command's specs come from (docs/specs.md "Where specs live"), highest precedence
// first: the --specs folders (in the order given), the library repository's specs/<op>/ (written
// into <workspace>/cache/specs, read from the head commit), and specs-dir (the shipped specs/).
#include <filesystem>
#include <vector>

#include "library/repository.hpp"
#include "library/spec_intake.hpp"
#include "spec/catalog.hpp"
#include "util/settings.hpp"

namespace kwb::app {

// <workspace>/cache/specs: the library's spec folders, one per op and content.
std::filesystem::path spec_cache_dir(const util::Settings& settings);
// The `specs` setting, split at ':'.
std::vector<std::filesystem::path> extra_spec_dirs(const util::Settings& settings);
// The catalog from every source. `library`: the open library, or null to open the one at the
// `library` setting if it exists (a command that only reads specs never creates a library).
util::Result<spec::Catalog> load_catalog(const util::Settings& settings, library::Repository* library = nullptr);

// The checks a spec added at run time passes beyond the loader's (library::validate_new_spec
// calls it): building its reference with the run-time reference build and `kwb spec check` plug in
// here. Empty until they land (issue #16).
library::SpecCheck spec_checks(const util::Settings& settings);

}  // namespace kwb::app
