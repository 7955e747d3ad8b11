#include "app/spec_sources.hpp"

#include <sstream>

#include "app/library_support.hpp"
#include "library/spec_folders.hpp"

namespace kwb::app {

namespace fs = std::filesystem;

fs::path spec_cache_dir(const util::Settings& settings) { return fs::path(settings.get("workspace")) / "cache" / "specs"; }

std::vector<fs::path> extra_spec_dirs(const util::Settings& settings) {
  std::vector<fs::path> out;
  std::stringstream in(settings.get("specs"));
  for (std::string dir; std::getline(in, dir, ':');)
    if (!dir.empty()) out.emplace_back(dir);
  return out;
}

util::Result<spec::Catalog> load_catalog(const util::Settings& settings, library::Repository* library) {
  std::vector<spec::CatalogSource> sources;
  for (const auto& dir : extra_spec_dirs(settings)) sources.push_back({dir, false, {}});
  std::unique_ptr<library::Repository> opened;
  if (!library) {
    std::error_code ec;
    const fs::path path = library_path(settings);
    if (fs::exists(path / ".git", ec) || fs::exists(path / "HEAD", ec)) {
      auto repo = library::Repository::open(path);
      if (!repo) return util::fail("library", repo.error().what());
      opened = std::move(*repo);
      library = opened.get();
    }
  }
  if (library) {
    auto folders = library::materialize_specs(*library, spec_cache_dir(settings));
    if (!folders) return util::fail("library " + library->path().string() + ": specs", folders.error().what());
    sources.push_back({{}, true, *folders});
  }
  sources.push_back({settings.get("specs-dir"), false, {}});
  return spec::Catalog::load(sources);
}

library::SpecCheck spec_checks(const util::Settings&) {
  // TODO(issue #16): build the reference (eval::ReferenceHost::build: compile errors are the
  // error), self-check it, and run the toolkit's spec check; each failure names file and field.
  return {};
}

}  // namespace kwb::app
