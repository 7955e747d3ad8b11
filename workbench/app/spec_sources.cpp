#include "app/spec_sources.hpp"

#include <sstream>

#include "app/library_support.hpp"
#include "library/spec_folders.hpp"
#include "eval/reference_host.hpp"
#include "speccheck/template_adapter.hpp"

#include <fmt/format.h>

#include "util/fs.hpp"

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

// The references as evaluations reach them (built by eval::ReferenceHost in the compile sandbox
// and run in a reference process), compiled with -Wall -Wextra: one build serves the warnings
// check and the runs.
speccheck::ReferenceAccess spec_reference_access(const util::Settings& settings) {
  eval::EvalOptions opt = eval_options(settings);
  eval::ReferenceHostConfig cfg = reference_host_config(opt);
  cfg.workspace = std::filesystem::temp_directory_path() / "kwb-speccheck";  // its build and process folders
  auto host = std::make_shared<eval::ReferenceHost>(cfg);
  const std::vector<std::string> warnings = {"-Wall", "-Wextra"};
  auto build = [host, warnings](const core::Spec& spec) -> util::Result<speccheck::ReferenceBuild> {
    auto b = host->build(spec, warnings);
    if (!b) return std::unexpected(b.error());
    return speccheck::ReferenceBuild{b->ok, b->diagnostics, b->reason};
  };
  auto open = [host, warnings](const core::Spec& spec) { return host->open(spec, warnings); };
  auto open_template = [host](const core::Spec& spec,
                              const core::Variant& v) -> util::Result<std::shared_ptr<eval::Reference>> {
    auto source = speccheck::template_reference_source(spec, v);
    if (!source) return util::fail("", "the spec ships no CPU template for variant " + v.name);
    return host->open_source(spec, *source, spec.file.parent_path() / spec.templates.at("cpu").at(v.name).file);
  };
  return {build, open, open_template};
}

library::SpecCheck spec_checks(const util::Settings& settings) {
  // `kwb spec check` on the folder as sent, reference checks included (the reference is built
  // and run in the sandbox here, before anything is committed); its errors refuse the spec,
  // its warnings do not.
  auto access = std::make_shared<speccheck::ReferenceAccess>(spec_reference_access(settings));
  return [access](const core::Spec& spec, const fs::path& sent) -> util::Result<void> {
    // The checker wants the folder named as its op, as in a catalog: a copy under a fresh folder.
    auto scratch = util::make_unique_dir(fs::temp_directory_path() / "kwb-speccheck", "add-");
    if (!scratch) return std::unexpected(scratch.error());
    struct Cleanup {
      fs::path dir;
      ~Cleanup() {
        std::error_code ec;
        fs::remove_all(dir, ec);
      }
    } cleanup{*scratch};
    const fs::path folder = *scratch / spec.op;
    std::error_code ec;
    fs::copy(sent, folder, fs::copy_options::recursive, ec);
    if (ec) return util::fail(folder.string(), "cannot stage the spec for its check: " + ec.message());
    speccheck::CheckOptions options;
    auto problems = speccheck::check_folder(folder, options, *access);
    const speccheck::Problem* first = nullptr;
    std::string all;
    size_t errors = 0;
    for (const auto& p : problems) {
      if (p.severity != speccheck::Severity::error) continue;
      if (!first) first = &p;
      ++errors;
      all += "\n  " + speccheck::format_problem(p);
    }
    if (!first) return {};
    std::string file = fs::path(first->file).filename().string();
    return util::fail(file + (first->field.empty() ? "" : ": " + first->field),
                      errors == 1 ? first->message
                                  : first->message + fmt::format(" (and {} more problems: kwb spec check lists them all){}",
                                                                 errors - 1, all));
  };
}

}  // namespace kwb::app
