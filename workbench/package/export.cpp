// write_package: resolve, render every file in memory, then write them into a temporary sibling
// of out_dir and rename it into place.
#include "package/export.hpp"

#include "core/reference_interface.hpp"

#include <set>

#include <fmt/format.h>

#include "package/model.hpp"
#include "util/fs.hpp"

namespace kwb::package {

namespace fs = std::filesystem;

util::Result<std::map<std::string, std::string>> render_package(const Package& pkg) {
  std::map<std::string, std::string> files;
  files["include/kwb/kernels.hpp"] = render_header(pkg);
  files["src/runtime.hpp"] = render_runtime_hpp();
  files["src/runtime.cpp"] = render_runtime_cpp();
  for (const auto& t : pkg.targets) {
    auto d = render_dispatcher(t);
    if (!d) return std::unexpected(d.error());
    files["src/" + t.function + ".cpp"] = std::move(*d);
    for (const auto* k : cpu_kernels(t))
      files[k->unit] = render_cpu_unit(t, *k, pkg.kernel_sources.at(k->path));
    if (t.cuda)
      for (const auto& c : t.cuda->configs) files[c.file] = render_cuda_config(t, c, pkg.kernel_sources.at(t.cuda->path));
  }
  for (const auto& [path, text] : pkg.kernel_sources) files["kernels/" + path] = text;
  auto example = render_example(pkg);
  if (!example) return std::unexpected(example.error());
  files["example/main.cpp"] = std::move(*example);
  files["example/check.hpp"] = render_example_check_hpp();
  // The reference interface, verbatim as the workbench compiles references against it (the C
  // entry and its ABI header too, though the example calls the C++ functions directly).
  for (const auto& [path, text] : core::reference_interface_files()) files["reference/" + path] = text;
  for (const auto& [op, text] : pkg.references) files["reference/" + op + ".cpp"] = text;
  files["CMakeLists.txt"] = render_cmake(pkg);
  files["cmake/kwbConfig.cmake.in"] = render_config_in();
  files["README.md"] = render_readme(pkg);
  files["kwb-package.json"] = render_manifest(pkg);
  files["dispatch.json"] = pkg.dispatch_json;
  return files;
}

namespace {

// out_dir must be absent, an empty folder, or (with replace) a previous export.
util::Result<void> check_out_dir(const fs::path& out, bool replace) {
  std::error_code ec;
  if (!fs::exists(out, ec)) return {};
  if (!fs::is_directory(out, ec)) return util::fail(out.string(), "exists and is not a folder");
  if (fs::is_empty(out, ec)) return {};
  if (replace && fs::is_regular_file(out / "kwb-package.json", ec)) return {};
  return util::fail(out.string(), replace ? "is not empty and holds no previous export (kwb-package.json): choose a new folder"
                                          : "is not empty: choose a new folder, or replace the previous export");
}

// Top-level entries of a package that an export writes; everything else in a previous export's
// folder is the user's (the README's build/ and build-cuda/ folders, notes) and is kept.
bool written_by_export(const std::string& name, const std::map<std::string, std::string>& files) {
  static const std::set<std::string> k_names = {"CMakeLists.txt", "README.md", "kwb-package.json", "dispatch.json",
                                                "include", "src", "cpu", "cuda", "kernels", "example", "reference", "cmake"};
  if (k_names.contains(name)) return true;
  for (const auto& [path, text] : files)
    if (fs::path(path).begin()->string() == name) return true;
  return false;
}

// Moves the user's entries of a previous export into the staged package (the names moved, for
// moving them back when the swap fails).
util::Result<std::vector<std::string>> carry_over(const fs::path& out, const fs::path& staged,
                                                  const std::map<std::string, std::string>& files) {
  std::vector<std::string> moved;
  std::error_code ec;
  if (!fs::is_directory(out, ec)) return moved;
  auto back = [&] {
    std::error_code e2;
    for (const auto& name : moved) fs::rename(staged / name, out / name, e2);
  };
  std::vector<std::string> keep;  // listed first: the folder is not changed while it is read
  for (const auto& entry : fs::directory_iterator(out, ec))
    if (const std::string name = entry.path().filename().string(); !written_by_export(name, files)) keep.push_back(name);
  if (ec) return util::fail(out.string(), "cannot list the previous export: " + ec.message());
  for (const auto& name : keep) {
    fs::rename(out / name, staged / name, ec);
    if (ec) {
      back();
      return util::fail((out / name).string(), "cannot keep it in the new export: " + ec.message());
    }
    moved.push_back(name);
  }
  return moved;
}

util::Result<void> move_into_place(const fs::path& staged, const fs::path& out) {
  std::error_code ec;
  fs::path old;
  if (fs::exists(out, ec)) {
    auto dir = util::make_unique_dir(out.parent_path(), fmt::format(".{}.old-", out.filename().string()));
    if (!dir) return std::unexpected(dir.error());
    old = *dir / "package";
    fs::rename(out, old, ec);
    if (ec) return util::fail(out.string(), "cannot move the previous export aside: " + ec.message());
  }
  fs::rename(staged, out, ec);
  if (ec) {
    if (!old.empty()) fs::rename(old, out, ec);
    return util::fail(out.string(), "cannot move the new package into place: " + ec.message());
  }
  if (!old.empty()) fs::remove_all(old.parent_path(), ec);
  return {};
}

}  // namespace

util::Result<ExportReport> write_package(const ExportRequest& req) {
  auto pkg = resolve_package(req);
  if (!pkg) return std::unexpected(pkg.error());
  auto files = render_package(*pkg);
  if (!files) return std::unexpected(files.error());

  std::error_code ec;
  const fs::path out = fs::absolute(req.out_dir, ec).lexically_normal();
  if (req.out_dir.empty() || !out.has_filename()) return util::fail("out_dir", "no folder to export into");
  if (auto r = check_out_dir(out, req.replace); !r) return std::unexpected(r.error());
  auto staged = util::make_unique_dir(out.parent_path(), fmt::format(".{}.tmp-", out.filename().string()));
  if (!staged) return std::unexpected(staged.error());
  for (const auto& [path, text] : *files) {
    if (auto w = util::write_file_atomic(*staged / path, text); !w) {
      fs::remove_all(*staged, ec);
      return std::unexpected(w.error());
    }
  }
  auto kept = carry_over(out, *staged, *files);
  if (!kept) {
    fs::remove_all(*staged, ec);
    return std::unexpected(kept.error());
  }
  if (auto m = move_into_place(*staged, out); !m) {
    for (const auto& name : *kept) fs::rename(*staged / name, out / name, ec);
    fs::remove_all(*staged, ec);
    return std::unexpected(m.error());
  }

  ExportReport report;
  report.out_dir = out;
  report.skipped = pkg->skipped;
  for (const auto& [path, text] : *files) report.files.push_back(path);
  for (const auto& t : pkg->targets)
    report.variants.push_back({t.spec->op, t.variant->name, t.function, t.cpu ? t.cpu->path : "",
                               t.cuda ? t.cuda->path : "", t.cuda ? t.cuda->configs.size() : 0});
  return report;
}

}  // namespace kwb::package
